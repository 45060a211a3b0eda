import Foundation
import Gatehouse
import Synchronization

/// The one-time link that lets the first admin be created on a fresh install: a random token valid for an hour,
/// new at each start until an admin exists. Only its hash is kept, in memory.
public final class SetupLink: Sendable {
    public static let lifetime: Int64 = 3600
    private let current = Mutex<(hash: [UInt8], expires: Int64)?>(nil)

    public init() {}

    /// A new token (replacing any previous one).
    public func issue(now: Int64) throws -> String {
        let token = try RandomToken.secret(prefix: "")
        current.withLock { $0 = (RandomToken.hash(token), now + Self.lifetime) }
        return token
    }

    /// Whether `token` is the current, unexpired one.
    public func isValid(_ token: String, now: Int64) -> Bool {
        guard let c = current.withLock({ $0 }), now < c.expires else { return false }
        return RandomToken.hashMatches(token, c.hash)
    }

    /// Ends the link (once the first admin exists).
    public func consume() {
        current.withLock { $0 = nil }
    }
}
