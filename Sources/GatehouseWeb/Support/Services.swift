import Foundation
import Gatehouse
import HTTP

/// The domain services the web face calls, built over one `Store`.
public struct Services: Sendable {
    public let store: Store
    public let environments: Environments
    public let keys: APIKeys
    public let tokens: ManagementTokens
    /// Debug tokens of the environments (simulators, emulators, CI).
    public let debugTokens: DebugTokens
    public let audit: AuditLog
    public let admins: Admins
    public let verdicts: Verdicts
    /// The receipt signing keys (JWKS, rotation).
    public let receiptKeys: ReceiptKeys
    /// Issues receipts under the current receipt key.
    public let receipts: ReceiptIssuer
    /// The last hour's assessed requests with and without proof (the assess service counts; the Overview reads).
    public let assessTally = AssessTally()

    public init(store: Store) {
        self.store = store
        environments = Environments(store: store)
        keys = APIKeys(store: store)
        tokens = ManagementTokens(store: store)
        debugTokens = DebugTokens(store: store)
        audit = AuditLog(store: store)
        admins = Admins(store: store)
        verdicts = Verdicts(store: store)
        receiptKeys = ReceiptKeys(store: store)
        receipts = ReceiptIssuer(keys: receiptKeys)
    }

    /// The actor behind a request's bearer management token, if it has `scope` (write includes read).
    /// Throws 401 (missing/unknown/revoked) or 403 (read token on a write call).
    func authenticate(_ request: Request, scope: ManagementToken.Scope) throws -> Actor {
        guard request.headers["Authorization"] != nil else {
            throw DomainError.unauthenticated("no Authorization header: send a management token as Authorization: Bearer gtm_…")
        }
        guard let presented = request.bearerCredentials else {
            throw DomainError.unauthenticated("the Authorization header is not a Bearer token: send a management token as Authorization: Bearer gtm_…")
        }
        let token = try tokens.authenticate(presented)
        if scope == .write && token.scope == .read {
            throw DomainError.forbidden("token \(token.id) (\(token.name)) is read-only; this call needs a write token")
        }
        return Actor(kind: .token, id: token.id, name: token.name)
    }
}
