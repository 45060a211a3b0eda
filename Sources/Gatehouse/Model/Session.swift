/// A signed-in admin's browser session. The cookie holds a random 256-bit token; only its SHA-256 is stored.
public struct Session: Sendable, Equatable {
    public var admin: Admin
    /// The per-session token every state-changing form carries.
    public var csrfToken: String
    public var createdAt: Int64
    public var lastSeenAt: Int64
    /// A message for the next page, already taken out of the store.
    public var flash: Flash?
}

/// A message left for a session's next page (Post/Redirect/Get), and how it reads: a change done, or a change done
/// that the admin should look at again (a key check that found the keys wrong).
public struct Flash: Sendable, Equatable {
    public enum Tone: String, Sendable {
        case done, warning
    }

    public var message: String
    public var tone: Tone

    public init(_ message: String, tone: Tone = .done) {
        self.message = message
        self.tone = tone
    }
}

/// Session and login limits, in one place.
public struct SessionPolicy: Sendable {
    /// A session unused this long ends (12 hours).
    public var idleTimeout: Int64 = 12 * 3600
    /// A session ends this long after login whatever its use (7 days).
    public var absoluteTimeout: Int64 = 7 * 86_400
    /// How stale `lastSeenAt` may get before a request writes it. Idle expiry is only as exact as this: with 60 s a
    /// session used 30 s after its last write ended 30 s early, so the default writes at most once a second.
    public var touchResolution: Int64 = 1
    /// Failures (per account or per address) after which each attempt must wait, doubling from 1 s.
    public var delayAfterFailures = 5
    /// Failures within `lockWindow` that lock the account or address for `lockWindow`.
    public var lockAfterFailures = 20
    public var lockWindow: Int64 = 15 * 60
    /// The longest delay between attempts before the lock.
    public var maxDelay: Int64 = 60

    public init() {}
}
