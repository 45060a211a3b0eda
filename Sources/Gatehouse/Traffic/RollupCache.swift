import Synchronization

/// The week's summed rollups per environment, kept in memory until the environment ingests again or the hour turns
/// (rollups are hourly, so the window's sums only change then). With them, the last checklist evaluated over them and
/// what it was evaluated for: the same environment revision with the same number of live secret keys gives the same
/// report until the rollups change.
///
/// A page asks for many environments at once: each call takes the lock once, whatever the number of environments.
final class RollupCache: Sendable {
    /// What a checklist depends on besides the rollups: the environment's revision (every change to its setup makes
    /// a new one) and how many secret keys it has that are live now.
    struct ChecklistKey: Equatable {
        var revision: Int64
        var activeSecretKeys: Int
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

    private struct State {
        var generations: [String: Int] = [:]
        var entries: [String: Entry] = [:]
    }

    private let state = Mutex(State())

    /// For each environment, what is cached for the hour of `now` (rollups and evaluation may be nil) and the
    /// generation to store new values under.
    func entries(_ environmentIDs: [String], now: Int64) -> [String: Entry] {
        state.withLock { s in
            var out: [String: Entry] = [:]
            for id in environmentIDs {
                let generation = s.generations[id, default: 0]
                if let e = s.entries[id], e.generation == generation, e.hour == now / 3600 {
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
        state.withLock { s in
            var out: [String: ChecklistCounts] = [:]
            out.reserveCapacity(requests.count)
            for (id, key) in requests {
                guard let e = s.entries[id], e.generation == s.generations[id, default: 0], e.hour == now / 3600,
                      let evaluation = e.evaluation, evaluation.key == key else { continue }
                out[id] = evaluation.counts
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
