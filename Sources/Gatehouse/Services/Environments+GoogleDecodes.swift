import Storage

extension Environments {
    /// The calls to Google's decodeIntegrityToken counted for environment `id` today (UTC), for the dashboard.
    /// - Throws: `StorageError`.
    public func googleDecodesToday(_ id: String) throws -> Int {
        let now = store.clock()
        return try store.read { db in try GoogleDecodeCountsTable.today(db, environmentID: id, now: now) }
    }
}
