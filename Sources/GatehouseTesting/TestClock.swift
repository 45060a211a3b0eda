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

    /// The closure to hand to the application.
    public var function: @Sendable () -> Int64 { { self.now } }
}
