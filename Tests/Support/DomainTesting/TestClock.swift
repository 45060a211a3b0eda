import Gatehouse
import Synchronization

/// A clock tests move by hand (unix seconds), so expiry and windows are tested without sleeping.
public final class TestClock: Sendable {
    private let seconds: Mutex<Int64>

    public init(_ start: Int64 = 1_795_000_000) {
        seconds = Mutex(start)
    }

    public var now: Int64 { seconds.withLock { $0 } }

    public func advance(by delta: Int64) {
        seconds.withLock { $0 += delta }
    }

    public func set(_ value: Int64) {
        seconds.withLock { $0 = value }
    }

    /// The clock to hand to the application: its wall time is this clock's; its monotonic time is the system's, so the
    /// device rate limits refill as they do in a served process (a test of the limits builds a `RateLimiter` on a
    /// clock of its own).
    public var injected: TimeSource { TimeSource(wall: { self.now }, monotonic: TimeSource.system.monotonic) }
}
