import Synchronization

/// The week's summed rollups per environment, kept in memory until the environment ingests again or the hour turns
/// (rollups are hourly, so the window's sums only change then). With them, the last checklist evaluated over them and
/// the configuration it was for: the same configuration gives the same report until the rollups change.
final class RollupCache: Sendable {
    struct Entry {
        var generation: Int
        var hour: Int64
        var rollups: [VerdictRollup]
        /// The last checklist evaluated over these rollups, and the configuration it was evaluated for.
        var report: (configuration: ChecklistConfiguration, report: ChecklistReport)?
    }

    private struct State {
        var generations: [String: Int] = [:]
        var entries: [String: Entry] = [:]
    }

    private let state = Mutex(State())

    /// The cached rollups of an environment for the hour of `now`, or nil, with the generation to store under.
    func lookup(_ environmentID: String, now: Int64) -> (rollups: [VerdictRollup]?, generation: Int) {
        state.withLock { s in
            let generation = s.generations[environmentID, default: 0]
            guard let e = s.entries[environmentID], e.generation == generation, e.hour == now / 3600 else { return (nil, generation) }
            return (e.rollups, generation)
        }
    }

    /// Stores rollups read while the environment was at `generation` (dropped if it ingested meanwhile).
    func store(_ rollups: [VerdictRollup], for environmentID: String, generation: Int, now: Int64) {
        state.withLock { s in
            guard s.generations[environmentID, default: 0] == generation else { return }
            s.entries[environmentID] = Entry(generation: generation, hour: now / 3600, rollups: rollups, report: nil)
        }
    }

    /// The report last evaluated for `configuration` over the rollups cached for this hour, if any.
    func report(_ environmentID: String, configuration: ChecklistConfiguration, now: Int64) -> ChecklistReport? {
        state.withLock { s in
            guard let e = s.entries[environmentID], e.generation == s.generations[environmentID, default: 0], e.hour == now / 3600,
                  let cached = e.report, cached.configuration == configuration
            else { return nil }
            return cached.report
        }
    }

    /// Keeps the report evaluated over the cached rollups of this hour.
    func keep(_ report: ChecklistReport, for environmentID: String, configuration: ChecklistConfiguration, generation: Int, now: Int64) {
        state.withLock { s in
            guard s.generations[environmentID, default: 0] == generation, s.entries[environmentID]?.hour == now / 3600 else { return }
            s.entries[environmentID]?.report = (configuration, report)
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
