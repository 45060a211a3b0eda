import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// Management tokens for automation: list, create (secret shown once), revoke after a confirmation page.
/// Everyone signed in reads the list; owners and editors create and revoke.
struct TokensController: Sendable {
    let pages: Pages
    let tokens: ManagementTokens

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/tokens", pages.html(tokensPage))
        add("POST", "/tokens", pages.html(createToken))
        add("GET", "/tokens/{id}/revoke", pages.html(revokeTokenPage))
        add("POST", "/tokens/{id}/revoke", pages.html(revokeToken))
    }

    func tokensPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        return try tokensView(context, values: [:], status: 200)
    }

    func tokensView(_ context: DashboardContext, values: [String: MustacheValue], status: Int) throws -> Response {
        let tokens = try tokens.list()
        var data = values
        data["tokens"] = .array(tokens.map(tokenRow))
        data["empty"] = .bool(tokens.isEmpty)
        if data["scopeWrite"] == nil { data["scopeRead"] = true }
        return pages.page("pages/tokens", title: "API tokens", data, context: context, status: status, section: "tokens")
    }

    func tokenRow(_ token: ManagementToken) -> MustacheValue {
        [
            "id": .string(token.id),
            "name": .string(token.name),
            "write": .bool(token.scope == .write),
            "hint": .string(token.hint),
            "created": Dates.value(token.createdAt),
            "lastUsed": token.lastUsedAt.map(Dates.value) ?? .null,
            "revoked": token.revokedAt.map(Dates.value) ?? .null,
        ]
    }

    func createToken(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let name = form["name"] ?? ""
        let scope = ManagementToken.Scope(rawValue: form["scope"] ?? "")
        var kept: [String: MustacheValue] = ["name": .string(name), "scopeWrite": .bool(scope == .write), "scopeRead": .bool(scope != .write)]
        guard let scope else {
            kept["errors"] = ["scope": "must be read or write"]
            return try tokensView(context, values: kept, status: 422)
        }
        let created: (token: ManagementToken, secret: String)
        do {
            created = try tokens.create(name: name, scope: scope, actor: context.actor)
        } catch let error as ValidationError {
            kept["errors"] = fieldErrors(error)
            return try tokensView(context, values: kept, status: 422)
        }
        let host = context.request.headers["Host"] ?? "localhost:8080"
        let scheme = pages.secure(context.request) ? "https" : "http"
        var response = pages.page("pages/tokens-secret", title: "Token created", [
            "secret": .string(created.secret),
            "name": .string(created.token.name),
            "write": .bool(created.token.scope == .write),
            "curl": .string("curl -H \"Authorization: Bearer \(created.secret)\" \(scheme)://\(host)/api/management/v1/environments"),
        ], context: context, section: "tokens")
        // The one exception to Post/Redirect/Get: the plaintext secret exists only in this response. A redirect would
        // have to keep it somewhere (the session, a URL) until the next GET; instead the page is the POST's answer and
        // `no-store` keeps it out of every cache, so going back or reloading never shows it again.
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    func revokeTokenPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        guard context.session.admin.role.canEdit else { throw DomainError.forbidden("viewers can read but not change anything; ask an owner for the editor role") }
        let token = try self.token(try request.parameter("id"))
        guard token.revokedAt == nil else { throw DomainError.conflict("token \(token.name) is already revoked") }
        return pages.page("pages/tokens-revoke", title: "Revoke \(token.name)", ["token": tokenRow(token)], context: context, section: "tokens")
    }

    func revokeToken(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let token = try self.token(try request.parameter("id"))
        try tokens.revoke(token.id, actor: context.actor)
        return try pages.done(context, to: "/tokens", flash: "Token “\(token.name)” is revoked: calls with it now get 401.")
    }

    func token(_ id: String) throws -> ManagementToken {
        guard let token = try tokens.list().first(where: { $0.id == id }) else { throw DomainError.notFound("no token \(id)") }
        return token
    }
}
