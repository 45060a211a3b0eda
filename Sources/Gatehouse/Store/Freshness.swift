import Synchronization

/// How recently this server completed a look at the other servers' changes (``Store/followOtherServers(waitMilliseconds:)``),
/// on a database that several servers share. A cache that decides access answers from memory only while the last
/// look is at most ``bound`` old: a server that cannot look (its listener lost, the database out of reach, connections
/// at their limit) reads through to the database, or answers `503` when that fails too, rather than go on honouring
/// a key, token or session another server revoked.
final class Freshness: Sendable {
    /// The oldest a completed look may be for caches to answer (3 seconds).
    static let bound: UInt64 = 3_000_000_000

    /// Whether other servers write the database (else this process sees every write itself: always fresh).
    let shared: Bool
    private let monotonic: @Sendable () -> UInt64
    /// When the last look completed (the monotonic clock's nanoseconds); the store's opening counts as one.
    private let lastLook: Atomic<UInt64>

    init(shared: Bool, monotonic: @escaping @Sendable () -> UInt64) {
        self.shared = shared
        self.monotonic = monotonic
        lastLook = Atomic(monotonic())
    }

    /// Notes a completed look.
    func looked() {
        lastLook.store(monotonic(), ordering: .releasing)
    }

    /// Whether caches must not answer: shared, and no look completed within ``bound``.
    var isStale: Bool {
        shared && monotonic() &- lastLook.load(ordering: .acquiring) > Self.bound
    }
}
