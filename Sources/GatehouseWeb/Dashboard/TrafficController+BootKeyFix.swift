import Attestation
import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// The checklist's one-click fix for Key Attestation: accept the published boot key phones presented (GrapheneOS's
/// for a device model), after a confirmation page that shows what changes and why. Only a key of the table of
/// published keys is accepted here; any other goes through the Apps tab's policy form.
extension TrafficController {
    /// `GET /environments/{environmentId}/traffic/add-boot-key?key=…`: the confirmation page.
    func addBootKeyPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let (key, published) = try Self.publishedBootKey(request.queryValue("key"))
        return addBootKeyView(context, environment: environment, key: key, published: published, errors: [], status: 200)
    }

    /// `POST` of the confirmation: CSRF and the editor role, the change, then back to the traffic page.
    func addBootKeySubmit(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let (key, published) = try Self.publishedBootKey(form["key"])
        let back = "/environments/\(environment.id)/traffic"
        if environment.keyAttestation.bootKeys.contains(key) {
            return try pages.done(context, to: back, flash: "The boot key of \(published.name) is already accepted.")
        }
        do {
            _ = try environments.addBootKey(key, to: environment.id, ifMatch: form["etag"], actor: context.actor)
        } catch let error as ValidationError {
            return addBootKeyView(context, environment: environment, key: key, published: published, errors: error.errors.map(\.message), status: 422)
        }
        return try pages.done(context, to: back, flash: "Accepted the boot key of \(published.name). Its phones verify from their next "
            + "registration, and the checklist counts the earlier refusals as fixed.")
    }

    /// The key of a query or form with its table entry; a 404 page for a key that is not a published one.
    static func publishedBootKey(_ value: String?) throws -> (String, PublishedBootKeys.Entry) {
        guard let key = value?.lowercased(), let published = PublishedBootKeys.named(key) else {
            throw DomainError.notFound("that is not a boot key an operating system publishes; add other keys on the Apps tab's Key Attestation policy")
        }
        return (key, published)
    }

    func addBootKeyView(_ context: DashboardContext, environment: Environment, key: String, published: PublishedBootKeys.Entry,
                        errors: [String], status: Int) -> Response {
        var reported: MustacheValue = .null
        if let report = try? checklists.report(for: environment), let item = report.item(SetupItem.bootKeyUnknown.rawValue),
           let seen = item.evidence.observed.first(where: { $0.value == key }) {
            reported = ["count": .string(Wording.number(seen.count)), "verdicts": .string(Wording.number(item.evidence.verdicts))]
        }
        let before = environment.keyAttestation.bootKeys
        return pages.page("pages/environment-traffic-add-boot-key", title: "Accept a boot key · \(environment.name)", EnvironmentHead.values(environment, tab: "traffic").merging([
            "etag": .string(environment.etag),
            "key": .string(key),
            "name": .string(published.name),
            "operatingSystem": .string(published.operatingSystem),
            "before": .array(before.map { ["value": .string($0), "name": PublishedBootKeys.named($0).map { .string($0.name) } ?? .null] }),
            "hasBefore": .bool(!before.isEmpty),
            "reported": reported,
            "errors": errors.isEmpty ? .null : .array(errors.map { .string($0) }),
        ]) { _, own in own }, context: context, status: status, section: "environments")
    }
}
