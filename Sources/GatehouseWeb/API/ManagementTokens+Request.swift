import Gatehouse
import HTTP

extension ManagementTokens {
    /// The actor behind a request's bearer management token, if it has `scope` (write includes read).
    /// - Throws: `DomainError.unauthenticated` (missing, unknown or revoked token: 401) or `.forbidden` (a read token
    ///   on a write call: 403).
    func actor(of request: Request, scope: ManagementToken.Scope) throws -> AuditActor {
        guard request.headers["Authorization"] != nil else {
            throw DomainError.unauthenticated("no Authorization header: send a management token as Authorization: Bearer gtm_…")
        }
        guard let presented = request.bearerCredentials else {
            throw DomainError.unauthenticated("the Authorization header is not a Bearer token: send a management token as Authorization: Bearer gtm_…")
        }
        let token = try authenticate(presented)
        if scope == .write && token.scope == .read {
            throw DomainError.forbidden("token \(token.id) (\(token.name)) is read-only; this call needs a write token")
        }
        return AuditActor(kind: .token, id: token.id, name: token.name)
    }
}
