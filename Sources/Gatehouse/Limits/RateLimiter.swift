import Synchronization

/// Token buckets by key (a client address, an API key id): each holds up to `burst` tokens, refilled at `rate` per
/// second; a request takes one or is refused with the seconds until one is back (for `Retry-After`).
///
/// Bounded: at `capacity` buckets, the full ones (idle long enough to have refilled) are dropped; if none is full, the
/// tenth least recently used are, so that a client rotating addresses (IPv6 gives one plenty) forgives only the
/// clients idle longest, never the ones it is limited with.
public final class RateLimiter: Sendable {
    /// Tokens added per second (0: no limit).
    public let rate: Double
    /// The most tokens a bucket holds.
    public let burst: Double
    /// The most buckets kept.
    public let capacity: Int
    /// Now, in nanoseconds of a monotonic clock. Injected so tests can move time.
    private let clock: @Sendable () -> UInt64
    private let buckets = Mutex<[String: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    /// A limiter of `rate` requests per second with bursts of `burst` (at least 1) per key; `rate` 0 limits nothing.
    public init(rate: Double, burst: Double, capacity: Int = 100_000, clock: @escaping @Sendable () -> UInt64 = TimeSource.system.monotonic) {
        self.rate = max(0, rate)
        self.burst = max(1, burst)
        self.capacity = max(1, capacity)
        self.clock = clock
    }

    /// Takes a token for `key`: nil when allowed, else the whole seconds (at least 1) until a token is back.
    public func take(_ key: String) -> Int? {
        guard rate > 0 else { return nil }
        let now = clock()
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = Double(now &- bucket.updated) / 1e9
            bucket.tokens = min(burst, bucket.tokens + max(0, elapsed) * rate)
            bucket.updated = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                if buckets[key] == nil && buckets.count >= capacity { prune(&buckets, now: now) }
                buckets[key] = bucket
                return nil
            }
            buckets[key] = bucket
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }

    /// Drops the buckets that have refilled by `now`, or, when none has, the tenth least recently used.
    private func prune(_ buckets: inout [String: Bucket], now: UInt64) {
        let before = buckets.count
        buckets = buckets.filter { _, bucket in bucket.tokens + Double(now &- bucket.updated) / 1e9 * rate < burst }
        guard buckets.count == before else { return }
        for key in buckets.sorted(by: { $0.value.updated < $1.value.updated }).prefix(max(1, before / 10)).map(\.key) {
            buckets[key] = nil
        }
    }
}
