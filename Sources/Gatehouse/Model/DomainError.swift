/// Why a domain operation refused, other than invalid fields (`ValidationError`). The web layer maps each case to
/// one HTTP status; messages never contain secrets.
public enum DomainError: Error, Sendable, Equatable {
    /// The named thing does not exist (404).
    case notFound(String)
    /// The change conflicts with what is stored, e.g. a duplicate (409).
    case conflict(String)
    /// `If-Match` named another revision (412).
    case preconditionFailed(String)
    /// No valid credentials (401).
    case unauthenticated(String)
    /// Valid credentials without the right (403).
    case forbidden(String)
    /// Too many attempts; try again after the given seconds (429).
    case throttled(String, retryAfter: Int)
    /// The store cannot serve the change this moment (the database is busy); try again after the given seconds (503).
    case unavailable(String, retryAfter: Int)
}
