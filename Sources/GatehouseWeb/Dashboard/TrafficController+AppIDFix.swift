import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// The checklist's one-click fix for App Attest: register the app id phones attest (the one Apple certified on their
/// keys), after a confirmation page that shows what changes and why. It goes through the same validation as the apps
/// page (`Environments.addAppleAppID`).
extension TrafficController {
    /// `GET /environments/{environmentId}/traffic/add-app-id?appId=…`: the confirmation page.
    func addAppIDPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let appID = try Self.offered(try Self.appID(request.queryValue("appId")), in: environment)
        return addAppIDView(context, environment: environment, appID: appID, errors: [], status: 200)
    }

    /// `POST` of the confirmation: CSRF and the editor role, the change, then back to the traffic page.
    func addAppIDSubmit(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let appID = try Self.offered(try Self.appID(form["appId"]), in: environment)
        let back = "/environments/\(environment.id)/traffic"
        if environment.appleAppIDs.contains(appID) {
            return try pages.done(context, to: back, flash: "\(appID) is already registered.")
        }
        do {
            _ = try environments.addAppleAppID(appID, to: environment.id, ifMatch: form["etag"], actor: context.actor)
        } catch let error as ValidationError {
            return addAppIDView(context, environment: environment, appID: appID, errors: error.errors.map(\.message), status: 422)
        }
        return try pages.done(context, to: back, flash: "Registered \(appID). Keys phones attest for it register from now on; "
            + "the phones that failed register their keys again at their next attestation.")
    }

    /// `appID` when it is one the Traffic tab offers (a registered bundle id under another team id); a 404 page
    /// otherwise, so that no link can make the one-click fix register another developer's app.
    static func offered(_ appID: String, in environment: Environment) throws -> String {
        guard environment.appleAppIDs.contains(appID) || AppIDOffer.isOffered(appID, in: environment) else {
            throw DomainError.notFound("\(appID) is not offered here: its bundle id is none of this environment's; register a new app on the Apps tab")
        }
        return appID
    }

    /// The app id of a query or form; a 404 page when it is not `TEAMID.bundleId`.
    static func appID(_ value: String?) throws -> String {
        guard let value, AppleAppID.isValid(value) else { throw DomainError.notFound("that is not \(AppleAppID.expectation)") }
        return value
    }

    func addAppIDView(_ context: DashboardContext, environment: Environment, appID: String, errors: [String], status: Int) -> Response {
        var reported: MustacheValue = .null
        if let report = try? checklists.report(for: environment), let item = report.item(SetupItem.appIdNotRegistered.rawValue),
           let seen = item.evidence.observed.first(where: { $0.value == appID }) {
            reported = ["count": .string(Wording.number(seen.count)), "verdicts": .string(Wording.number(item.evidence.verdicts))]
        }
        let bundle = AppleAppID.bundleID(appID)
        let similar = environment.appleAppIDs.filter { AppleAppID.bundleID($0) == bundle }
        return pages.page("pages/environment-traffic-add-app-id", title: "Register an app id · \(environment.name)", EnvironmentHead.values(environment, tab: "traffic").merging([
            "etag": .string(environment.etag),
            "appId": .string(appID),
            "similar": similar.isEmpty ? .null : .string(similar.joined(separator: ", ")),
            "before": .array(environment.appleAppIDs.map { .string($0) }),
            "hasBefore": .bool(!environment.appleAppIDs.isEmpty),
            "after": .array((environment.appleAppIDs + [appID]).map { ["value": .string($0), "new": .bool($0 == appID)] }),
            "reported": reported,
            "errors": errors.isEmpty ? .null : .array(errors.map { .string($0) }),
        ]) { _, own in own }, context: context, status: status, section: "environments")
    }
}
