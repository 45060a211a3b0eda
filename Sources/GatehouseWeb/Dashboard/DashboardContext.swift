import Gatehouse
import HTTP

/// Who is asking, on a dashboard page: the signed-in admin's session and the cookie token naming it.
struct DashboardContext: Sendable {
    let session: Session
    let token: String
    let request: Request
    /// The client's address (``ClientAddress``), which security events tell.
    let address: String

    var actor: AuditActor { AuditActor(kind: .admin, id: session.admin.id, name: session.admin.email, address: address) }
}
