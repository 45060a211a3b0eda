import Gatehouse
import HTTP
import Mustache

/// The Keys tab's debug tokens (docs/device-api.md "Debug tokens"): create one (its value shown once, with how to pass
/// it), list them with expiry and last use, revoke one behind a confirmation. Same rules as the Management API's
/// `/debug-tokens` endpoints.
extension KeysController {
    /// Lifetimes offered for a new token, in days, with their labels (30 days is the default, 365 the most).
    static let debugLifetimeChoices: [(days: Int, label: String)] = [(1, "1 day"), (7, "7 days"), (30, "30 days"), (90, "90 days"), (365, "365 days")]

    /// One token for the template.
    func debugTokenRow(_ token: DebugToken, in environment: Environment, now: Int64) -> MustacheValue {
        let state = token.state(at: now)
        return [
                "id": .string(token.id),
                "name": .string(token.name),
                "createdAt": .string(Dates.display(token.createdAt)),
                "expiresAt": .string(Dates.display(token.expiresAt)),
                "lastUsedAt": token.lastUsedAt.map { .string(Dates.display($0)) } ?? .null,
                "active": .bool(state == "active"),
                "expired": .bool(state == "expired"),
                "revoked": .bool(state == "revoked"),
                "revokedAt": token.revokedAt.map { .string(Dates.display($0)) } ?? .null,
                "revokeURL": .string("/environments/\(environment.id)/debug-tokens/\(token.id)/revoke"),
            ]
    }

    func createDebugToken(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let name = form["debugName"] ?? ""
        let days = form["lifetimeDays"].flatMap { Int($0) }
        func again(_ errors: [FieldError], status: Int) throws -> Response {
            var messages: [String: MustacheValue] = [:]
            for error in errors {
                messages[error.pointer == "/expiresAt" ? "lifetime" : error.pointer == "/name" ? "name" : "form"] = .string(error.message)
            }
            return try environmentKeysView(context, environment, values: [
                "debugErrors": .dictionary(messages), "debugName": .string(name),
            ], status: status)
        }
        guard let days, Self.debugLifetimeChoices.contains(where: { $0.days == days }) else {
            return try again([FieldError("/expiresAt", "must be one of the lifetimes offered")], status: 422)
        }
        let issued: (token: DebugToken, value: String)
        do {
            issued = try debugTokens.create(environmentID: environment.id, name: name, expiresAt: clock() + Int64(days) * 86_400, actor: context.actor)
        } catch let error as ValidationError {
            return try again(error.errors, status: 422)
        } catch DomainError.conflict(let message) {
            return try again([FieldError("", message)], status: 409)
        }
        let warning = environment.kind == .production
            ? " This is a production environment: while the token is active the setup checklist warns, since any build that carries it passes as attested."
            : ""
        let publicKey = try keys.list(environmentID: environment.id).first { $0.type == .public && $0.isActive(at: clock()) }?.publicValue
        return shownOnceKey(context, environment, secret: issued.value, title: "Debug token created",
                            intro: "\(issued.token.name) lets a simulator, an emulator or a CI build pass as attested in \(environment.name) until \(Dates.display(issued.token.expiresAt)), attack mode included.\(warning)",
                            what: "debug token", lost: "revoke it and create another", usage: [
                                "simulate": .string("gatehouse simulate --endpoint http://HOST:PORT --api-key \(publicKey ?? "pk_…") --platform ios --app-id com.example.app --debug-token \(issued.value)"),
                            ])
    }

    func revokeDebugTokenPage(_ request: Request) throws -> Response {
        let context = try pages.editor(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let token = try debugToken(try request.parameter("tokenId"), in: environment)
        let confirmation = Confirmation(
            title: "Revoke \(token.name)",
            lead: "The debug token \(token.name) stops working at once:",
            consequences: [
                "simulators, emulators and CI builds that bring it are judged forged (debugTokenInvalid) from their next request, and refused under attack mode;",
                "a revoked token cannot be restored: create a new one if a build still needs a way in.",
            ],
            action: "/environments/\(environment.id)/debug-tokens/\(token.id)/revoke", button: "Revoke debug token",
            cancel: "/environments/\(environment.id)/keys#debug-tokens")
        return pages.confirmPage(confirmation, in: environment, tab: "keys", context: context)
    }

    func revokeDebugToken(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let token = try debugTokens.revoke(environmentID: environment.id, tokenID: try request.parameter("tokenId"), actor: context.actor)
        return try pages.done(context, to: "/environments/\(environment.id)/keys", flash: "Revoked the debug token \(token.name): builds that bring it are refused from now on.")
    }

    func debugToken(_ tokenID: String, in environment: Environment) throws -> DebugToken {
        guard let token = try debugTokens.list(environmentID: environment.id).first(where: { $0.id == tokenID }) else {
            throw DomainError.notFound("no debug token \(tokenID) in \(environment.name)")
        }
        return token
    }
}
