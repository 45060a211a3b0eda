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

    /// The revision row of the attested keys of `environmentID`, which a change to some of them moves on (so other
    /// servers forget that environment's keys, and no other's).
    static func attestedKeysName(_ environmentID: String) -> String {
        attestedKeysPrefix + environmentID
    }

    static let attestedKeysPrefix = "attested_keys/"

    /// Moves the revisions of the attested keys of `environmentIDs` on (made on first use).
    static func bump(_ db: any SQLConnection, attestedKeysOf environmentIDs: Set<String>) throws {
        for environmentID in environmentIDs.sorted() {
            try db.execute("INSERT INTO revisions (name, revision) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET revision = revisions.revision + 1",
                           [.text(attestedKeysName(environmentID))])
        }
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
