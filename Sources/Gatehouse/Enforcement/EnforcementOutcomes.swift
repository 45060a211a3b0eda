import Foundation
import Storage
import Synchronization

/// The outcomes of judged calls (docs/device-api.md "Outcomes"): the edge check's counted in memory (no database round
/// trip per call) and added to the hourly rows by a background job each second; backends' reports added at once,
/// once per idempotency key; the week per route read back for the API, the Traffic tab and the checklist.
public final class EnforcementOutcomes: Sendable {
    let store: Store
    /// Counts not yet written.
    private let pending: ShardedBuffer<OutcomeTally>
    /// Every count since start, by environment, route and outcome (`/metrics`), written or not.
    private let totals = Mutex<[TotalKey: Int]>([:])
    private let onError: @Sendable (any Error) -> Void

    /// The key of ``totals(_:)``.
    public struct TotalKey: Hashable, Sendable {
        public var environmentID: String
        public var route: String
        public var outcome: EnforcementOutcome
    }

    /// The service over `store`; past `highWater` counts waiting the writing job runs at once; `onError` hears of
    /// counts that could not be written (they are dropped: statistics, not state).
    init(_: Wiring, store: Store, highWater: Int, onError: @escaping @Sendable (any Error) -> Void = { _ in }) {
        self.store = store
        pending = ShardedBuffer(highWater: highWater)
        self.onError = onError
    }

    /// Counts one call of `route` judged at the edge now.
    public func count(_ outcome: EnforcementOutcome, route: String, environmentID: String) {
        let now = store.clock()
        let row = EnforcementOutcomesTable.Row(environmentID: environmentID, hour: Self.hour(of: now), route: route, source: .edge, outcome: outcome)
        pending.add(row)
    }

    /// Writes the counts waiting in memory; returns how many calls they held.
    @discardableResult
    public func flush() -> Int {
        pending.drain { tally in
            let merged = tally.counts
            guard !merged.isEmpty else { return 0 }
            addToTotals(merged)
            let rows = merged.sorted { ($0.key.hour, $0.key.environmentID) < ($1.key.hour, $1.key.environmentID) }.map { (row: $0.key, count: $0.value) }
            do {
                try store.write { db in try EnforcementOutcomesTable.add(db, rows) }
            } catch {
                onError(error)
            }
            return tally.itemCount
        }
    }

    /// The job writing the counts each second (``DomainJobs``).
    var job: BackgroundJob {
        pending.job(name: "gh-outcomes", every: 1) { [self] in flush() }
    }

    /// Counts since this server started, by environment, route and outcome, edge and backend together.
    public func totalsSinceStart() -> [TotalKey: Int] {
        totals.withLock { $0 }
    }

    private func addToTotals(_ counts: [EnforcementOutcomesTable.Row: Int]) {
        totals.withLock { totals in
            for (row, n) in counts {
                totals[TotalKey(environmentID: row.environmentID, route: row.route, outcome: row.outcome), default: 0] += n
            }
        }
    }

    /// Adds a backend's reported counts to environment `environmentID`, once per `idempotencyKey`: a key seen before
    /// adds nothing and returns the number of entries it accepted then.
    /// - Throws: `DomainError.unavailable` when the database is busy; `StorageError`.
    public func ingest(_ counts: [ReportedOutcomes], environmentID: String, idempotencyKey: String?) throws -> Int {
        let now = store.clock()
        var merged: [EnforcementOutcomesTable.Row: Int] = [:]
        for entry in counts {
            merged[EnforcementOutcomesTable.Row(environmentID: environmentID, hour: entry.hour, route: entry.route, source: .backend, outcome: entry.outcome), default: 0] += entry.count
        }
        let rows = merged.sorted { $0.key.hour < $1.key.hour }.map { (row: $0.key, count: $0.value) }
        let (accepted, added) = try store.write { db -> (Int, Bool) in
            if let idempotencyKey {
                // The verdict ingest's table of keys, in a namespace of its own.
                let key = "enforcement:" + idempotencyKey
                if let accepted = try VerdictsTable.acceptedBatch(db, environmentID: environmentID, idempotencyKey: key) { return (accepted, false) }
                try VerdictsTable.recordBatch(db, environmentID: environmentID, idempotencyKey: key, accepted: counts.count, now: now)
            }
            try EnforcementOutcomesTable.add(db, rows)
            return (counts.count, true)
        }
        if added { addToTotals(merged) }
        return accepted
    }

    /// The last `days` days of environment `settings`'s calls (the current hour and the whole hours before it), per
    /// route and source, with each route's last day apart: the configured routes in order, then `(unmatched)`, then
    /// routes only backends reported.
    /// - Throws: `StorageError`.
    public func week(environmentID: String, settings: EnforcementSettings, days: Int = 7) throws -> EnforcementWeek {
        let now = store.clock()
        let from = Self.hour(of: now) + 3600 - Int64(days) * 86_400
        let dayStart = Self.hour(of: now) + 3600 - 86_400
        let today = now - ((now % 86_400) + 86_400) % 86_400
        let firstDay = today - Int64(days - 1) * 86_400
        var routes: [String: RouteOutcomes] = [:]
        var daily = Array(repeating: OutcomeCounts(), count: days)
        try store.read { db in
            try EnforcementOutcomesTable.counts(db, environmentID: environmentID, from: min(from, firstDay)) { hour, route, source, outcome, n in
                let day = Int((hour - firstDay) / 86_400)
                if hour >= firstDay, day < days { daily[day][outcome] += n }
                guard hour >= from else { return }
                var entry = routes[route] ?? RouteOutcomes(name: route)
                switch source {
                case .edge: entry.edge[outcome] += n
                case .backend: entry.backend[outcome] += n
                }
                if hour >= dayStart { entry.lastDay[outcome] += n }
                entry.firstHour = min(entry.firstHour ?? hour, hour)
                routes[route] = entry
            }
        }
        var ordered: [RouteOutcomes] = []
        for route in settings.routes {
            var entry = routes.removeValue(forKey: route.name) ?? RouteOutcomes(name: route.name)
            entry.mode = settings.mode(of: route)
            ordered.append(entry)
        }
        var unmatched = routes.removeValue(forKey: EnforcementSettings.unmatched) ?? RouteOutcomes(name: EnforcementSettings.unmatched)
        unmatched.mode = settings.mode
        ordered.append(unmatched)
        ordered += routes.values.sorted { $0.name < $1.name }
        return EnforcementWeek(days: days, from: from, to: now, routes: ordered,
                               daily: daily.enumerated().map { (day: firstDay + Int64($0.offset) * 86_400, counts: $0.element) })
    }

    /// The calls of about the last hour (the hour buckets the last 60 minutes touch) per route, edge and backends
    /// together: what `enforcement.refusing` is judged on.
    /// - Throws: `StorageError`.
    public func lastHour(environmentID: String) throws -> [String: OutcomeCounts] {
        let from = Self.hour(of: store.clock() - 3_599)
        var routes: [String: OutcomeCounts] = [:]
        try store.read { db in
            try EnforcementOutcomesTable.counts(db, environmentID: environmentID, from: from) { _, route, _, outcome, n in
                routes[route, default: OutcomeCounts()][outcome] += n
            }
        }
        return routes
    }

    /// Deletes hours past the traffic rollups' retention.
    /// - Throws: `StorageError`.
    public func prune() throws {
        let before = store.clock() - Verdicts.rollupRetention
        try store.write { db in try EnforcementOutcomesTable.delete(db, before: before) }
    }

    /// The start of the UTC hour of `time`.
    static func hour(of time: Int64) -> Int64 {
        time - ((time % 3600) + 3600) % 3600
    }
}

/// One entry of a backend's report: calls of `route` in `hour` with `outcome`.
public struct ReportedOutcomes: Sendable, Equatable {
    public var route: String
    public var outcome: EnforcementOutcome
    /// The start of the hour (unix seconds).
    public var hour: Int64
    public var count: Int

    public init(route: String, outcome: EnforcementOutcome, hour: Int64, count: Int) {
        self.route = route
        self.outcome = outcome
        self.hour = hour
        self.count = count
    }
}

/// A route's calls over the week: by source, the last day apart.
public struct RouteOutcomes: Sendable, Equatable {
    public var name: String
    /// The mode it judges under now; nil for a route only a backend reported.
    public var mode: EnforcementMode?
    public var edge = OutcomeCounts()
    public var backend = OutcomeCounts()
    /// Both sources, the last 24 hours.
    public var lastDay = OutcomeCounts()
    /// The first hour with calls in the week.
    public var firstHour: Int64?

    public init(name: String) {
        self.name = name
    }

    /// Both sources.
    public var all: OutcomeCounts {
        var all = edge
        all.add(backend)
        return all
    }

    /// The share of the week's calls `enforce` would have refused (0 without calls).
    public var wouldRefuseShare: Double {
        let total = all.total
        return total == 0 ? 0 : Double(all.wouldRefuse) / Double(total)
    }
}

/// The week of an environment's judged calls (`GET …/enforcement`, the Traffic tab's "Your API").
public struct EnforcementWeek: Sendable {
    public var days: Int
    public var from: Int64
    public var to: Int64
    public var routes: [RouteOutcomes]
    /// Per UTC day, oldest first: every route and source, for the chart.
    public var daily: [(day: Int64, counts: OutcomeCounts)]
}

/// The edge check's counts waiting in ``EnforcementOutcomes``, by hourly row.
struct OutcomeTally: BufferedBatch {
    var counts: [EnforcementOutcomesTable.Row: Int] = [:]
    var itemCount = 0

    mutating func add(_ row: EnforcementOutcomesTable.Row) {
        counts[row, default: 0] += 1
        itemCount += 1
    }

    mutating func merge(_ other: OutcomeTally) {
        counts.merge(other.counts, uniquingKeysWith: +)
        itemCount += other.itemCount
    }
}
