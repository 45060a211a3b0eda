import Gatehouse
import Synchronization
import Testing

/// The token buckets of the device API and of the Google budget: refills with time, per key, and bounded without
/// forgiving the clients it is limiting.
@Suite("Rate limiter")
struct RateLimiterTests {
    @Test func aBucketRefillsWithTime() {
        let now = Atomic<UInt64>(1_000_000_000)
        let limiter = RateLimiter(rate: 2, burst: 3, clock: { now.load(ordering: .relaxed) })
        #expect((0..<3).map { _ in limiter.take("a") } == [nil, nil, nil])
        #expect(limiter.take("a") == 1)
        #expect(limiter.take("b") == nil, "buckets are per key")
        now.add(500_000_000, ordering: .relaxed)
        #expect(limiter.take("a") == nil)
        #expect(limiter.take("a") == 1)
        #expect(RateLimiter(rate: 0, burst: 0).take("x") == nil, "rate 0 limits nothing")
    }

    /// An attacker rotating addresses (a new IPv6 address each request) fills the table; before, a full table with no
    /// refilled bucket was emptied whole, which gave every limited client a fresh bucket. Now only the least recently
    /// used go, never a client that keeps knocking.
    @Test func rotatingAddressesDoNotResetTheLimitedClients() {
        let now = Atomic<UInt64>(1_000_000_000)
        let limiter = RateLimiter(rate: 0.001, burst: 2, capacity: 100, clock: { now.load(ordering: .relaxed) })
        #expect(limiter.take("victim") == nil && limiter.take("victim") == nil)
        #expect(limiter.take("victim") != nil)
        for n in 0..<2_000 {
            now.add(1_000, ordering: .relaxed)  // a microsecond per request: no bucket refills meanwhile
            #expect(limiter.take("2001:db8::\(String(n, radix: 16))") == nil)
            if n % 10 == 0 {
                now.add(1_000, ordering: .relaxed)
                #expect(limiter.take("victim") != nil, "the limited client was forgiven after \(n) rotated addresses")
            }
        }
    }
}
