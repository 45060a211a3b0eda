import Storage

extension Environments {
    /// The calls to Google's decodeIntegrityToken counted for environment `id` today (Pacific time), for the dashboard.
    /// - Throws: `StorageError`.
    public func googleDecodesToday(_ id: String) throws -> Int {
        let now = store.clock()
        return try store.read { db in try GoogleDecodeCountsTable.today(db, environmentID: id, now: now) }
    }

    /// Today's use of environment `id`'s quota (docs/device-api.md "Quota, counted as Google counts"): the Pacific day, the
    /// tokens judged per package and the calls to Google; apart from the environment, whose `ETag` traffic never moves.
    /// - Throws: `StorageError`; `DomainError.notFound`.
    public func playIntegrityUsage(_ id: String) throws -> PlayIntegrityUsage {
        let environment = try get(id)
        let now = store.clock()
        return try store.read { db in
            PlayIntegrityUsage(day: PacificDay(of: now), tokens: try PlayIntegrityTokenCountsTable.today(db, environmentID: id, now: now),
                               googleDecodes: try GoogleDecodeCountsTable.today(db, environmentID: id, now: now),
                               dailyQuota: environment.playIntegrity.dailyQuota)
        }
    }
}
