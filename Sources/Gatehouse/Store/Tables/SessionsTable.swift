import Storage

/// The `sessions` table: dashboard sessions by the SHA-256 of their cookie token (never the token), with their
/// CSRF token, the flash message for the next page and their times.
enum SessionsTable {
    static func insert(_ db: any SQLConnection, tokenHash: [UInt8], adminID: String, csrfToken: String, now: Int64) throws {
        db.wrote(.sessions)
        try db.execute(
            "INSERT INTO sessions (token_hash, admin_id, csrf_token, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)",
            [.blob(tokenHash), .text(adminID), .text(csrfToken), .integer(now), .integer(now)]
        )
    }

    /// The session whose token hashes to `hash`, with its admin, whether that admin is disabled, and the stored
    /// hash (to compare in constant time).
    static func get(_ db: any SQLConnection, tokenHash hash: [UInt8]) throws -> (session: Session, disabled: Bool, hash: [UInt8])? {
        try db.queryOne(
            """
            SELECT s.token_hash, s.csrf_token, s.flash, s.flash_tone, s.created_at, s.last_seen_at,
                   a.id AS aid, a.email, a.role, a.disabled, a.created_at AS admin_created
            FROM sessions s JOIN admins a ON a.id = s.admin_id WHERE s.token_hash = ?
            """, [.blob(hash)]
        ).map { row in (session: try session(row), disabled: try row.bool("disabled"), hash: try row.blob("token_hash")) }
    }

    static func delete(_ db: any SQLConnection, tokenHash: [UInt8]) throws {
        db.wrote(.sessions)
        try db.execute("DELETE FROM sessions WHERE token_hash = ?", [.blob(tokenHash)])
    }

    /// Ends every session of admin `adminID` but the one whose token hashes to `keeping` (none when empty).
    static func deleteAll(_ db: any SQLConnection, adminID: String, keeping: [UInt8] = []) throws {
        db.wrote(.sessions)
        try db.execute("DELETE FROM sessions WHERE admin_id = ? AND token_hash != ?", [.text(adminID), .blob(keeping)])
    }

    /// Marks the session seen at `now` and takes its flash message.
    static func touch(_ db: any SQLConnection, tokenHash: [UInt8], now: Int64) throws {
        db.wrote(.sessions)
        try db.execute("UPDATE sessions SET last_seen_at = ?, flash = NULL, flash_tone = NULL WHERE token_hash = ?", [.integer(now), .blob(tokenHash)])
    }

    /// Marks the session seen at `now`. Bookkeeping (``CachedTables/bookkeeping``): declares nothing written.
    static func markSeen(_ db: any SQLConnection, tokenHash: [UInt8], now: Int64) throws {
        try db.execute("UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?", [.integer(now), .blob(tokenHash)])
    }

    static func setFlash(_ db: any SQLConnection, tokenHash: [UInt8], _ flash: Flash) throws {
        db.wrote(.sessions)
        try db.execute("UPDATE sessions SET flash = ?, flash_tone = ? WHERE token_hash = ?",
                       [.text(flash.message), .text(flash.tone.rawValue), .blob(tokenHash)])
    }

    /// Deletes at most `limit` sessions last seen at or before `idleBefore` or created at or before `createdBefore`;
    /// returns how many.
    static func purge(_ db: any SQLConnection, idleBefore: Int64, createdBefore: Int64, limit: Int) throws -> Int {
        db.wrote(.sessions)
        return try db.query(
            """
            DELETE FROM sessions WHERE token_hash IN
              (SELECT token_hash FROM sessions WHERE last_seen_at <= ? OR created_at <= ? LIMIT ?) RETURNING token_hash
            """,
            [.integer(idleBefore), .integer(createdBefore), .integer(Int64(limit))]).count
    }

    static func session(_ row: Row) throws -> Session {
        guard let role = Admin.Role(rawValue: try row.text("role")) else {
            throw StorageError(.malformedRow, "admins.role is not owner, editor or viewer")
        }
        let admin = Admin(id: try row.text("aid"), email: try row.text("email"), role: role, disabled: false, createdAt: try row.integer("admin_created"))
        var flash: Flash?
        if let message = try row.optionalText("flash") {
            // A flash written before tones were stored (migration 0007) has none: it reads as done, as it showed.
            guard let tone = Flash.Tone(rawValue: try row.optionalText("flash_tone") ?? Flash.Tone.done.rawValue) else {
                throw StorageError(.malformedRow, "sessions.flash_tone is not a known tone")
            }
            flash = Flash(message, tone: tone)
        }
        return Session(admin: admin, csrfToken: try row.text("csrf_token"), createdAt: try row.integer("created_at"),
                       lastSeenAt: try row.integer("last_seen_at"), flash: flash)
    }
}
