import Storage

extension Tables {
    /// The `revisions` table: a counter per followed table (``CachedTables``), moved on in the transaction of every
    /// change to it, which servers sharing the database read to know what another one changed.
    enum Revisions {
        /// Moves the revisions of `tables` on.
        static func bump(_ db: any SQLConnection, _ tables: CachedTables) throws {
            let names = tables.revisionNames
            guard !names.isEmpty else { return }
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            try db.execute("UPDATE revisions SET revision = revision + 1 WHERE name IN (\(placeholders))", names.map { .text($0) })
        }

        /// Every table's revision, by name.
        static func all(_ db: any SQLConnection) throws -> [String: Int64] {
            var revisions: [String: Int64] = [:]
            try db.forEachRow("SELECT name, revision FROM revisions") { row in revisions[try row.text("name")] = try row.integer("revision") }
            return revisions
        }
    }
}
