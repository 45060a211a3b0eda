import Synchronization

/// Calls to Google's `decodeIntegrityToken` made by this process, per environment: the counter family
/// `gatehouse_play_integrity_google_decodes_total{environment}` of `/metrics` (a process-lifetime counter, as
/// Prometheus expects; the per-day count the checklist reads is in the store, `GoogleDecodeCounts`).
public final class GoogleDecodeTally: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// An empty tally.
    public init() {}

    /// Counts one call for `environmentID`.
    func count(_ environmentID: String) {
        counts.withLock { $0[environmentID, default: 0] += 1 }
    }

    /// The calls so far, per environment id.
    public var totals: [String: Int] { counts.withLock { $0 } }
}
