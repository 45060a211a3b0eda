import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// The environments list and creation.
struct EnvironmentsController: Sendable {
    let pages: Pages
    let environments: Environments
    let keys: APIKeys
    let checklists: ChecklistService
    /// The receipt signing keys, for the current key's id.
    let receiptKeys: ReceiptKeys
    /// The last hour's assessed requests with and without proof, for attack mode's effect.
    let assessTally: AssessTally
    /// The environment's debug tokens, for the Overview's count and its production warning.
    let debugTokens: DebugTokens
    let clock: TimeSource

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/environments", pages.html(environmentsPage))
        add("POST", "/environments", pages.html(createEnvironment))
        add("GET", "/environments/{environmentId}", pages.html(environmentOverviewPage))
        add("POST", "/environments/{environmentId}", pages.html(updateEnvironment))
        add("GET", "/environments/{environmentId}/delete", pages.html(deleteEnvironmentPage))
        add("POST", "/environments/{environmentId}/delete", pages.html(deleteEnvironment))
    }

    func environmentsPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        return try environmentsView(context, values: [:], status: 200)
    }

    func environmentsView(_ context: DashboardContext, values: [String: MustacheValue], status: Int) throws -> Response {
        let environments = try environments.list()
        let counts = try checklists.counts(for: environments)
        var rows: [MustacheValue] = []
        rows.reserveCapacity(environments.count)
        for environment in environments {
            guard let count = counts[environment.id] else { continue }
            let failing = count.failing
            let warning = count.warning
            rows.append([
                "id": .string(environment.id),
                "name": .string(environment.name),
                "kind": .string(environment.kind.rawValue),
                "production": .bool(environment.kind == .production),
                "attackMode": .bool(environment.attackMode),
                "androidCount": .int(environment.androidApps.count),
                "appleCount": .int(environment.appleAppIDs.count),
                "failing": failing > 0 ? .int(failing) : .null,
                "warning": warning > 0 ? .int(warning) : .null,
                "healthy": .bool(failing == 0 && warning == 0),
            ])
        }
        var data = values
        data["environments"] = .array(rows)
        data["empty"] = .bool(rows.isEmpty)
        return pages.page("pages/environments", title: "Environments", data, context: context, status: status, section: "environments")
    }

    func createEnvironment(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        var errors = FieldErrors()
        let name = EnvironmentFields.name(form["name"] ?? "", at: "/name", errors: &errors)
        let kind = EnvironmentFields.kind(.string(form["kind"] ?? ""), at: "/kind", errors: &errors)
        guard let name, let kind, errors.isEmpty else {
            return try environmentsView(context, values: ["errors": fieldErrors(ValidationError(errors.errors)), "name": .string(form["name"] ?? ""),
                                                          "kindDevelopment": .bool(form["kind"] == "development")], status: 422)
        }
        let (environment, keys) = try environments.create(name: name, kind: kind, actor: context.actor)
        let secret = keys.compactMap(\.secret).first ?? ""
        return pages.page("pages/secret", title: "Environment created", [
            "environment": ["id": .string(environment.id), "name": .string(environment.name)],
            "secret": .string(secret),
            "what": "secret key",
            "intro": .string("\(environment.name) is ready, with a public key for your apps and a secret key for your servers."),
            "next": .string("/environments/\(environment.id)/apps"),
            "nextLabel": "Register your apps",
        ], context: context, section: "environments")
    }
}
