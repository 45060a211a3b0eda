/// The week's summed rollups per environment, kept in memory until the rollups are written again (the store follows
/// the rollup tables: any ingest forgets every environment's) or the hour turns (rollups are hourly, so the window's sums
/// only change then). With them, the last checklist evaluated over them and
/// what it was evaluated for: the same environment revision with the same number of live secret keys gives the same
/// report until the rollups change.
///
/// A page asks for many environments at once: each call takes the lock once, whatever the number of environments.
final class RollupCache: @unchecked Sendable {  // `state` is only touched under `lock`
    /// What a checklist depends on besides the rollups: the environment's revision (every change to its setup makes
    /// a new one) and how many secret keys it has that are live now.
    struct ChecklistKey: Equatable {
        var revision: Int64
        var activeSecretKeys: Int
        /// Today's decodes through Google, in whole percent of the quota (the checklist is evaluated again as it moves).
        var googleQuotaPercent: Int = 0
        /// The last hour of the day in which the cap on Google calls for undecodable tokens refused tokens.
        var googleUndecodableCapped: CappedHour?
        /// The names of the environment's active debug tokens.
        var activeDebugTokens: [String] = []
        /// The receipt refresher's state and risk metrics (environments with a DeviceCheck key).
        var appAttest: AppAttestFigures?
        /// When Google's key attestation status list was fetched, in whole hours ago (nil: never).
        var statusListHours: Int64?
    }

    /// What the App Attest items read beyond the rollups.
    struct AppAttestFigures: Equatable {
        var refresh: AppleReceiptRefreshState
        var thisWeek: RiskMetricDistribution
        var previousWeek: RiskMetricDistribution
    }

    /// A checklist evaluated over an entry's rollups.
    struct Evaluation {
        var key: ChecklistKey
        var report: ChecklistReport
        var counts: ChecklistCounts
    }

    /// What is cached for one environment.
    struct Entry {
        var generation: Int
        var hour: Int64
        var rollups: [VerdictRollup]?
        var evaluation: Evaluation?
    }

    /// An evaluation's counts with what they hold for: plain values, so reading them retains nothing shared.
    private struct Summary {
        var generation: Int
        var hour: Int64
        var key: ChecklistKey
        var counts: ChecklistCounts
    }

    private struct State {
        /// Moved on by every write to the rollups (any environment's: the store follows tables, not rows).
        var generation = 0
        var entries: [String: Entry] = [:]
        var summaries: [String: Summary] = [:]
    }

    private let lock = ReadWriteLock()
    private var state = State()

    /// For each environment, what is cached for the hour of `now` (rollups and evaluation may be nil) and the
    /// generation to store new values under.
    func entries(_ environmentIDs: [String], now: Int64) -> [String: Entry] {
        lock.reading {
            var out: [String: Entry] = [:]
            for id in environmentIDs {
                let generation = state.generation
                if let e = state.entries[id], e.generation == generation, e.hour == now / 3600 {
                    out[id] = e
                } else {
                    out[id] = Entry(generation: generation, hour: now / 3600, rollups: nil, evaluation: nil)
                }
            }
            return out
        }
    }

    /// The counts of the checklists cached for the hour of `now` under the same key; environments without one are
    /// left out. Copies no rollups or reports: the environments list asks for this on every view.
    func counts(_ requests: [(id: String, key: ChecklistKey)], now: Int64) -> [String: ChecklistCounts] {
        lock.reading {
            var out: [String: ChecklistCounts] = [:]
            out.reserveCapacity(requests.count)
            for (id, key) in requests {
                guard let summary = state.summaries[id], summary.generation == state.generation,
                      summary.hour == now / 3600, summary.key == key else { continue }
                out[id] = summary.counts
            }
            return out
        }
    }

    /// Stores entries read or evaluated meanwhile; an entry read before the rollups were last written is dropped.
    func keep(_ entries: [String: Entry]) {
        guard !entries.isEmpty else { return }
        lock.writing {
            for (id, e) in entries where state.generation == e.generation {
                state.entries[id] = e
                state.summaries[id] = e.evaluation.map { Summary(generation: e.generation, hour: e.hour, key: $0.key, counts: $0.counts) }
            }
        }
    }

    /// Forgets every environment's rollups, after a write to them (the store calls it).
    @Sendable func invalidate() {
        lock.writing {
            state.generation += 1
            state.entries.removeAll(keepingCapacity: true)
            state.summaries.removeAll(keepingCapacity: true)
        }
    }
}
