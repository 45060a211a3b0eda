import Foundation
import Locks

/// Now, as Gatehouse reads it: the wall clock in unix seconds (expiries, freshness windows, days, audit times) and a
/// monotonic count of nanoseconds (rate limits, which must not jump with the wall clock). One value, injected into the
/// store and everything built on it, so tests move time by hand and never sleep.
public struct TimeSource: Sendable {
    /// Unix seconds.
    public let wall: @Sendable () -> Int64
    /// Nanoseconds since an arbitrary start, never going back.
    public let monotonic: @Sendable () -> UInt64

    /// A clock reading `wall` and `monotonic`.
    public init(wall: @escaping @Sendable () -> Int64, monotonic: @escaping @Sendable () -> UInt64) {
        self.wall = wall
        self.monotonic = monotonic
    }

    /// A clock whose monotonic time follows `wall` (for tests and benches that move the wall clock by hand: a rate
    /// limit then refills as their time moves).
    public init(wall: @escaping @Sendable () -> Int64) {
        self.init(wall: wall, monotonic: { UInt64(clamping: wall()) &* 1_000_000_000 })
    }

    /// The system's clocks.
    public static let system = TimeSource(wall: { Int64(Date().timeIntervalSince1970) }, monotonic: { monotonicNanoseconds() })

    /// Now on the wall clock, in unix seconds: `clock()`.
    public func callAsFunction() -> Int64 { wall() }
}
