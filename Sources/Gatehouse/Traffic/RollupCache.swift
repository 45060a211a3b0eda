import Synchronization

/// The week's summed rollups per environment, kept in memory until the environment ingests again or the hour turns
/// (rollups are hourly, so the window's sums only change then). With them, the last checklist evaluated over them and
/// the configuration it was for: the same configuration gives the same report until the rollups change.
///
/// A page asks for many environments at once: each call takes the lock once, whatever the number of environments.
final class RollupCache: Sendable {
    /// What is cached for one environment.
    struct Entry {
        var generation: Int
        var hour: Int64
        var rollups: [VerdictRollup]?
        /// The last checklist evaluated over these rollups, and the configuration it was evaluated for.
        var report: (configuration: ChecklistConfiguration, report: ChecklistReport)?
    }

    private struct State {
        var generations: [String: Int] = [:]
        var entries: [String: Entry] = [:]
    }

    private let state = Mutex(State())

    /// For each environment, what is cached for the hour of `now` (rollups and report may be nil) and the generation
    /// to store new values under.
    func entries(_ environmentIDs: [String], now: Int64) -> [String: Entry] {
        state.withLock { s in
            var out: [String: Entry] = [:]
            for id in environmentIDs {
                let generation = s.generations[id, default: 0]
                if let e = s.entries[id], e.generation == generation, e.hour == now / 3600 {
                    out[id] = e
                } else {
                    out[id] = Entry(generation: generation, hour: now / 3600, rollups: nil, report: nil)
                }
            }
            return out
        }
    }

    /// Stores entries read or evaluated meanwhile; an entry whose environment ingested since it was read is dropped.
    func keep(_ entries: [String: Entry]) {
        guard !entries.isEmpty else { return }
        state.withLock { s in
            for (id, e) in entries where s.generations[id, default: 0] == e.generation {
                s.entries[id] = e
            }
        }
    }

    /// Forgets an environment's rollups after it ingested (or was deleted).
    func invalidate(_ environmentID: String) {
        state.withLock { s in
            s.generations[environmentID, default: 0] += 1
            s.entries[environmentID] = nil
        }
    }
}
