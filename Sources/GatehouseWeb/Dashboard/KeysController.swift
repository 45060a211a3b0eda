import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// The Keys tab: an environment's API keys, creating, rolling with a grace period, and revoking them; and its debug
/// tokens (`KeysController+DebugTokens`). Same operations and rules as the Management API's `/keys` and
/// `/debug-tokens` endpoints.
struct KeysController: Sendable {
    let pages: Pages
    let environments: Environments
    let keys: APIKeys
    let debugTokens: DebugTokens
    let clock: TimeSource

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/environments/{environmentId}/keys", pages.html(environmentKeysPage))
        add("POST", "/environments/{environmentId}/keys", pages.html(createEnvironmentKey))
        add("POST", "/environments/{environmentId}/keys/{keyId}/roll", pages.html(rollEnvironmentKey))
        add("GET", "/environments/{environmentId}/keys/{keyId}/revoke", pages.html(revokeEnvironmentKeyPage))
        add("POST", "/environments/{environmentId}/keys/{keyId}/revoke", pages.html(revokeEnvironmentKey))
        add("POST", "/environments/{environmentId}/debug-tokens", pages.html(createDebugToken))
        add("GET", "/environments/{environmentId}/debug-tokens/{tokenId}/revoke", pages.html(revokeDebugTokenPage))
        add("POST", "/environments/{environmentId}/debug-tokens/{tokenId}/revoke", pages.html(revokeDebugToken))
    }

    /// Grace periods offered when rolling a key, in hours, with their labels.
    static let keyGraceChoices: [(hours: Int, label: String)] = [(0, "Grace: none"), (1, "Grace: 1 hour"), (24, "Grace: 24 hours"), (72, "Grace: 3 days"), (168, "Grace: 7 days")]

    func environmentKeysPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        return try environmentKeysView(context, environment, values: [:], status: 200)
    }

    func environmentKeysView(_ context: DashboardContext, _ environment: Environment, values: [String: MustacheValue], rollErrors: [String: String] = [:],
                             status: Int) throws -> Response {
        let now = clock()
        let keys = try keys.list(environmentID: environment.id)
        let base = "/environments/\(environment.id)/keys"
        var data = EnvironmentHead.values(environment, tab: "keys")
        data["keys"] = .array(keys.map { key in
            let state = key.state(at: now)
            return [
                "id": .string(key.id),
                "name": .string(key.name),
                "public": .bool(key.type == .public),
                "value": .string(key.publicValue ?? key.hint),
                "createdAt": .string(Dates.display(key.createdAt)),
                "active": .bool(state == "active"),
                "expiring": .bool(state == "expiring"),
                "expired": .bool(state == "expired"),
                "revoked": .bool(state == "revoked"),
                "until": key.expiresAt.map { .string(Dates.display($0)) } ?? .null,
                "revokedAt": key.revokedAt.map { .string(Dates.display($0)) } ?? .null,
                "rollable": .bool(state == "active"),
                "revocable": .bool(state == "active" || state == "expiring"),
                "rollURL": .string("\(base)/\(key.id)/roll"),
                "revokeURL": .string("\(base)/\(key.id)/revoke"),
                "rollError": rollErrors[key.id].map { .string($0) } ?? .null,
                "grace": .array(Self.keyGraceChoices.map { ["hours": .string(String($0.hours)), "label": .string($0.label), "selected": .bool($0.hours == 24)] }),
            ]
        })
        data["typeSecret"] = false
        let tokens = try debugTokens.list(environmentID: environment.id)
        data["debugTokens"] = .array(tokens.map { debugTokenRow($0, in: environment, now: now) })
        data["hasDebugTokens"] = .bool(!tokens.isEmpty)
        data["hasActiveDebugTokens"] = .bool(tokens.contains { $0.isActive(at: now) })
        data["debugLifetimes"] = .array(Self.debugLifetimeChoices.map { ["days": .string(String($0.days)), "label": .string($0.label), "selected": .bool($0.days == 30)] })
        for (key, value) in values { data[key] = value }
        return pages.page("pages/environment-keys", title: "Keys · \(environment.name)", data, context: context, status: status, section: "environments")
    }

    func createEnvironmentKey(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        var errors = FieldErrors()
        let type = form["type"].flatMap(APIKey.KeyType.init(rawValue:))
        if type == nil { errors.add("/type", "must be \"public\" or \"secret\"") }
        let name = EnvironmentFields.name(form["name"] ?? "", at: "/name", errors: &errors)
        guard let type, let name, errors.isEmpty else {
            return try environmentKeysView(context, environment, values: [
                "errors": fieldErrors(ValidationError(errors.errors)), "name": .string(form["name"] ?? ""), "typeSecret": .bool(form["type"] == "secret"),
            ], status: 422)
        }
        let issued = try keys.create(environmentID: environment.id, type: type, name: name, actor: context.actor)
        guard let secret = issued.secret else {
            return try pages.done(context, to: "/environments/\(environment.id)/keys", flash: "Created public key \(name): \(issued.key.publicValue ?? issued.key.hint).")
        }
        return shownOnceKey(context, environment, secret: secret, title: "Secret key created",
                         intro: "\(name) is ready for your servers (verdict ingest, checking receipts). It works from now until you roll or revoke it.")
    }

    func rollEnvironmentKey(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let keyID = try request.parameter("keyId")
        guard let hours = form["graceHours"].flatMap({ Int($0) }), (0...APIKeys.maxGraceHours).contains(hours) else {
            let message = "Grace period must be a whole number of hours from 0 to \(APIKeys.maxGraceHours)"
            return try environmentKeysView(context, environment, values: [:], rollErrors: [keyID: message], status: 422)
        }
        let issued = try keys.roll(environmentID: environment.id, keyID: keyID, graceHours: hours, actor: context.actor)
        let until = hours == 0 ? "The old key stopped working now." : "The old key keeps working until \(Dates.display(clock() + Int64(hours) * 3600)): deploy this one before then."
        guard let secret = issued.secret else {
            return try pages.done(context, to: "/environments/\(environment.id)/keys", flash: "Rolled \(issued.key.name): the new public key is \(issued.key.publicValue ?? issued.key.hint). \(until)")
        }
        return shownOnceKey(context, environment, secret: secret, title: "Secret key rolled", intro: "This replaces \(issued.key.name). \(until)")
    }

    /// The shown-once page, rendered as the POST's own response. This is the one exception to Post/Redirect/Get:
    /// redirecting would mean storing the plaintext (in the session or a flash) until the next page; answering
    /// directly with `Cache-Control: no-store` keeps it only in this one response.
    func shownOnceKey(_ context: DashboardContext, _ environment: Environment, secret: String, title: String, intro: String,
                      what: String = "secret key", lost: String? = nil, usage: MustacheValue = .null) -> Response {
        var response = pages.page("pages/secret", title: title, [
            "environment": ["id": .string(environment.id), "name": .string(environment.name)],
            "secret": .string(secret),
            "what": .string(what),
            "intro": .string(intro),
            "lost": lost.map { .string($0) } ?? .null,
            "usage": usage,
            "next": .string("/environments/\(environment.id)/keys"),
            "nextLabel": "Back to keys",
        ], context: context, section: "environments")
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    func revokeEnvironmentKeyPage(_ request: Request) throws -> Response {
        let context = try pages.editor(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let key = try environmentKey(try request.parameter("keyId"), in: environment)
        let who = key.type == .public ? "Apps that ship this public key" : "Servers using this secret key"
        let confirmation = Confirmation(
            title: "Revoke \(key.name)",
            lead: "\(key.publicValue ?? key.hint) stops working at once, without a grace period:",
            consequences: [
                .string("\(who) are refused from the next request;"),
                "a revoked key cannot be restored. To replace a key without an outage, roll it instead.",
            ],
            action: "/environments/\(environment.id)/keys/\(key.id)/revoke", button: "Revoke key",
            cancel: "/environments/\(environment.id)/keys")
        return pages.confirmPage(confirmation, in: environment, tab: "keys", context: context)
    }

    func revokeEnvironmentKey(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let key = try environmentKey(try request.parameter("keyId"), in: environment)
        try keys.revoke(environmentID: environment.id, keyID: key.id, actor: context.actor)
        return try pages.done(context, to: "/environments/\(environment.id)/keys", flash: "Revoked \(key.name) (\(key.publicValue ?? key.hint)).")
    }

    func environmentKey(_ keyID: String, in environment: Environment) throws -> APIKey {
        guard let key = try keys.list(environmentID: environment.id).first(where: { $0.id == keyID }) else {
            throw DomainError.notFound("no key \(keyID) in \(environment.name)")
        }
        return key
    }
}
