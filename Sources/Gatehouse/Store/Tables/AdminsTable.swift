import Storage

/// The `admins` table: dashboard accounts, their argon2id password hashes (PHC strings), roles and whether disabled.
enum AdminsTable {
    /// The columns ``admin(_:)`` reads.
    static let columns = "id, email, role, disabled, created_at"

    static func count(_ db: any SQLConnection) throws -> Int {
        try db.queryOne("SELECT COUNT(*) AS n FROM admins")?.int("n") ?? 0
    }

    /// Every admin, oldest first.
    static func all(_ db: any SQLConnection) throws -> [Admin] {
        try db.query("SELECT \(columns) FROM admins ORDER BY created_at, email").map(admin)
    }

    /// Admin `id`, if there is one.
    static func get(_ db: any SQLConnection, id: String) throws -> Admin? {
        try db.queryOne("SELECT \(columns) FROM admins WHERE id = ?", [.text(id)]).map(admin)
    }

    /// Admin `id` with its password hash.
    static func withPassword(_ db: any SQLConnection, id: String) throws -> (admin: Admin, passwordHash: String)? {
        try db.queryOne("SELECT \(columns), password_hash FROM admins WHERE id = ?", [.text(id)]).map { (try admin($0), try $0.text("password_hash")) }
    }

    /// The admin whose e-mail is `email` (case-insensitively), with its password hash.
    static func withPassword(_ db: any SQLConnection, email: String) throws -> (admin: Admin, passwordHash: String)? {
        try db.queryOne("SELECT \(columns), password_hash FROM admins WHERE email = ?", [.text(email)]).map { (try admin($0), try $0.text("password_hash")) }
    }

    /// The id of the admin whose e-mail is `email`, if there is one.
    static func id(_ db: any SQLConnection, email: String) throws -> String? {
        try db.queryOne("SELECT id FROM admins WHERE email = ?", [.text(email)])?.text("id")
    }

    /// How many active owners there are besides admin `id`.
    static func otherActiveOwners(_ db: any SQLConnection, besides id: String) throws -> Int {
        try db.queryOne("SELECT COUNT(*) AS n FROM admins WHERE role = 'owner' AND disabled = 0 AND id != ?", [.text(id)])?.int("n") ?? 0
    }

    static func insert(_ db: any SQLConnection, _ admin: Admin, passwordHash: String) throws {
        db.wrote(.admins)
        try db.execute(
            "INSERT INTO admins (id, email, password_hash, role, disabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.text(admin.id), .text(admin.email), .text(passwordHash), .text(admin.role.rawValue), SQLValue(admin.disabled),
             .integer(admin.createdAt), .integer(admin.createdAt)]
        )
    }

    static func setRole(_ db: any SQLConnection, id: String, role: Admin.Role, now: Int64) throws {
        db.wrote(.admins)
        try db.execute("UPDATE admins SET role = ?, updated_at = ? WHERE id = ?", [.text(role.rawValue), .integer(now), .text(id)])
    }

    static func setDisabled(_ db: any SQLConnection, id: String, disabled: Bool, now: Int64) throws {
        db.wrote(.admins)
        try db.execute("UPDATE admins SET disabled = ?, updated_at = ? WHERE id = ?", [SQLValue(disabled), .integer(now), .text(id)])
    }

    /// Sets the password hash of admin `id`; with `expected`, only when the stored hash is still that one
    /// (compare-and-swap). True when it was written.
    @discardableResult
    static func setPasswordHash(_ db: any SQLConnection, id: String, to hash: String, expected: String? = nil, now: Int64) throws -> Bool {
        db.wrote(.admins)
        if let expected {
            return try db.execute("UPDATE admins SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?",
                                  [.text(hash), .integer(now), .text(id), .text(expected)]) == 1
        }
        return try db.execute("UPDATE admins SET password_hash = ?, updated_at = ? WHERE id = ?", [.text(hash), .integer(now), .text(id)]) == 1
    }

    static func admin(_ row: Row) throws -> Admin {
        guard let role = Admin.Role(rawValue: try row.text("role")) else {
            throw StorageError(.malformedRow, "admins.role is not owner, editor or viewer")
        }
        return Admin(id: try row.text("id"), email: try row.text("email"), role: role, disabled: try row.bool("disabled"),
                     createdAt: try row.integer("created_at"))
    }
}

/// The `login_failures` table: failed sign-ins per subject (`account:<email>`, `address:<ip>`), for the throttle.
enum LoginFailuresTable {
    static func record(_ db: any SQLConnection, subject: String, at: Int64) throws {
        try db.execute("INSERT INTO login_failures (subject, at) VALUES (?, ?)", [.text(subject), .integer(at)])
    }

    /// The failures of `subject` after `since`, oldest first.
    static func times(_ db: any SQLConnection, subject: String, since: Int64) throws -> [Int64] {
        try db.query("SELECT at FROM login_failures WHERE subject = ? AND at > ? ORDER BY at", [.text(subject), .integer(since)]).map { try $0.integer("at") }
    }

    static func clear(_ db: any SQLConnection, subject: String) throws {
        try db.execute("DELETE FROM login_failures WHERE subject = ?", [.text(subject)])
    }

    static func prune(_ db: any SQLConnection, before cutoff: Int64) throws {
        try db.execute("DELETE FROM login_failures WHERE at < ?", [.integer(cutoff)])
    }
}
