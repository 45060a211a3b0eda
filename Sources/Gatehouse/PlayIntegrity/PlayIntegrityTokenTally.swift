import Synchronization

/// Play Integrity tokens judged by this process (decoded, first seen), per environment and package: the counter family
/// `gatehouse_play_integrity_tokens_total{environment, package}` of `/metrics` (the per-day counts are in the store).
public final class PlayIntegrityTokenTally: Sendable {
    private let counts = Mutex<[[String]: Int]>([:])

    /// An empty tally.
    public init() {}

    func count(environmentID: String, packageName: String) {
        counts.withLock { $0[[environmentID, packageName], default: 0] += 1 }
    }

    /// The tokens so far, per [environment id, package].
    public var totals: [[String]: Int] { counts.withLock { $0 } }
}
