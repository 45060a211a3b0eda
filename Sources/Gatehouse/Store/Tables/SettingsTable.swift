import Storage

/// The `settings` table: one value per key (the master key check).
enum SettingsTable {
    /// The bytes stored under `key`, nil when there are none.
    static func bytes(_ db: any SQLConnection, key: String) throws -> [UInt8]? {
        try db.queryOne("SELECT value FROM settings WHERE key = ?", [.text(key)])?.blob("value")
    }

    static func insert(_ db: any SQLConnection, key: String, bytes: [UInt8]) throws {
        try db.execute("INSERT INTO settings (key, value) VALUES (?, ?)", [.text(key), .blob(bytes)])
    }
}
