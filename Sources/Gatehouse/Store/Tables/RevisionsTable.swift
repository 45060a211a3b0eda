import Storage

/// The `revisions` table: a counter per followed table (``CachedTables``), moved on in the transaction of every
/// change to it, which servers sharing the database read to know what another one changed.
enum RevisionsTable {
    /// Moves the revisions of `tables` on.
    static func bump(_ db: any SQLConnection, _ tables: CachedTables) throws {
        let names = tables.revisionNames
        guard !names.isEmpty else { return }
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        try db.execute("UPDATE revisions SET revision = revision + 1 WHERE name IN (\(placeholders))", names.map { .text($0) })
    }

    /// Moves every table's revision on: what `gatehouse caches reset` announces after changes written around the
    /// store (SQL typed by an operator), which move none.
    static func bumpAll(_ db: any SQLConnection) throws {
        try db.execute("UPDATE revisions SET revision = revision + 1")
    }

    /// Takes the revision row of `table` for this write transaction (a no-op update, held until it ends): how a
    /// change that depends on a whole table (the first admin exists only while there is none) runs one at a time
    /// across servers on PostgreSQL; SQLite's one writer serializes it anyway.
    static func lock(_ db: any SQLConnection, _ table: CachedTables) throws {
        for name in table.revisionNames {
            try db.execute("UPDATE revisions SET revision = revision WHERE name = ?", [.text(name)])
        }
    }

    /// Every table's revision, by name.
    static func all(_ db: any SQLConnection) throws -> [String: Int64] {
        var revisions: [String: Int64] = [:]
        try db.forEachRow("SELECT name, revision FROM revisions") { row in revisions[try row.text("name")] = try row.integer("revision") }
        return revisions
    }
}
