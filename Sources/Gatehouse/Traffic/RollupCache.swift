import Synchronization

/// The week's summed rollups per environment, kept in memory until the environment ingests again or the hour turns
/// (rollups are hourly, so the window's sums only change then). The checklist itself is a cheap pure function and is
/// evaluated afresh every time; only the database aggregate is cached.
final class RollupCache: Sendable {
    struct Entry {
        var generation: Int
        var hour: Int64
        var rollups: [VerdictRollup]
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
            s.entries[environmentID] = Entry(generation: generation, hour: now / 3600, rollups: rollups)
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
