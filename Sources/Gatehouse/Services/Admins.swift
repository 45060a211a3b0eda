import Foundation
import Crypto
import Storage

/// Dashboard accounts: creation (first admin, CLI, owners), password checks with argon2id, roles.
public struct Admins: Sendable {
    let store: Store
    let hasher: PasswordHasher
    public static let minimumPasswordLength = 12
    public static let maximumPasswordLength = 1024

    public init(store: Store, hasher: PasswordHasher = PasswordHasher()) {
        self.store = store
        self.hasher = hasher
    }

    /// Checks an e-mail and password as a new account would need them; every problem by field.
    public static func validate(email: String, password: String) -> FieldErrors {
        var errors = FieldErrors()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        if parts.count != 2 || parts[0].isEmpty || !parts[1].contains(".") || email.count > 254 || email.contains(where: \.isWhitespace) {
            errors.add("/email", "must be an e-mail address such as you@example.com")
        }
        if password.count < minimumPasswordLength {
            errors.add("/password", "must be at least \(minimumPasswordLength) characters")
        } else if password.utf8.count > maximumPasswordLength {
            errors.add("/password", "must be at most \(maximumPasswordLength) bytes")
        }
        return errors
    }

    /// Creates an account; a duplicate e-mail is `DomainError.conflict`.
    @discardableResult
    public func create(email: String, password: String, role: Admin.Role, actor: Actor) throws -> Admin {
        let email = email.trimmingCharacters(in: .whitespaces)
        try Self.validate(email: email, password: password).throwIfAny()
        let hash = try hasher.hash(password)
        let now = store.clock()
        let admin = Admin(id: try RandomToken.identifier(prefix: "adm_"), email: email, role: role, disabled: false, createdAt: now)
        try store.write { db in
            if try db.queryOne("SELECT 1 FROM admins WHERE email = ?", [.text(email)]) != nil {
                throw ValidationError("/email", "is already an admin's e-mail")
            }
            try db.execute(
                "INSERT INTO admins (id, email, password_hash, role, disabled, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)",
                [.text(admin.id), .text(email), .text(hash), .text(role.rawValue), .integer(now), .integer(now)]
            )
            try AuditLog.record(db, at: now, actor: actor, action: "admin.create", environmentID: nil, changes: [
                AuditChange(field: "admins", before: .null, after: .string("\(email) (\(role.rawValue))")),
            ])
        }
        return admin
    }

    /// How many admins exist (zero on a fresh install: the setup link is offered).
    public func count() throws -> Int {
        try store.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM admins")?.int("n") ?? 0 }
    }

    public func list() throws -> [Admin] {
        try store.read { db in try db.query("SELECT \(Self.columns) FROM admins ORDER BY created_at, email").map(Self.admin) }
    }

    /// The columns ``admin(_:)`` reads.
    static let columns = "id, email, role, disabled, created_at"

    static func admin(_ row: Row) throws -> Admin {
        guard let role = Admin.Role(rawValue: try row.text("role")) else {
            throw StorageError(.malformedRow, "admins.role is not owner, editor or viewer")
        }
        return Admin(id: try row.text("id"), email: try row.text("email"), role: role, disabled: try row.bool("disabled"),
                     createdAt: try row.integer("created_at"))
    }
}

extension Admins {
    /// Forgets login failures older than a day.
    public func pruneLoginFailures() throws {
        let cutoff = store.clock() - 86_400
        try store.write { db in try db.execute("DELETE FROM login_failures WHERE at < ?", [.integer(cutoff)]) }
    }
}

extension Admins {
    /// One admin by id; throws `DomainError.notFound` when there is none.
    public func get(_ id: String) throws -> Admin {
        guard let row = try store.read({ db in try db.queryOne("SELECT \(Self.columns) FROM admins WHERE id = ?", [.text(id)]) }) else {
            throw DomainError.notFound("no admin \(id)")
        }
        return try Self.admin(row)
    }

    /// Gives an admin another role, audited. Throws `DomainError.notFound` for an unknown id and
    /// `DomainError.conflict` when it would demote the last active owner (nobody could manage admins any more).
    @discardableResult
    public func setRole(id: String, role: Admin.Role, actor: Actor) throws -> Admin {
        let now = store.clock()
        defer { store.sessionCache.invalidate() }
        return try store.write { db in
            let before = try Self.admin(in: db, id: id)
            guard before.role != role else { return before }
            if before.role == .owner, !before.disabled, try Self.otherActiveOwners(db, besides: id) == 0 {
                throw DomainError.conflict("cannot make \(before.email) \(role == .editor ? "an" : "a") \(role.rawValue): they are the last active owner; make another admin an owner first, so someone can still manage admins")
            }
            try db.execute("UPDATE admins SET role = ?, updated_at = ? WHERE id = ?", [.text(role.rawValue), .integer(now), .text(id)])
            var after = before
            after.role = role
            try AuditLog.record(db, at: now, actor: actor, action: "admin.role", environmentID: nil, changes: [
                AuditChange(field: "admins", before: .string(Self.describe(before)), after: .string(Self.describe(after))),
            ])
            return after
        }
    }

    /// Disables (ending every session of the admin at once) or enables an admin, audited. Throws
    /// `DomainError.notFound` for an unknown id and `DomainError.conflict` when it would disable the last active owner.
    @discardableResult
    public func setDisabled(id: String, disabled: Bool, actor: Actor) throws -> Admin {
        let now = store.clock()
        defer { store.sessionCache.invalidate() }
        return try store.write { db in
            let before = try Self.admin(in: db, id: id)
            guard before.disabled != disabled else { return before }
            if disabled, before.role == .owner, try Self.otherActiveOwners(db, besides: id) == 0 {
                throw DomainError.conflict("cannot disable \(before.email): they are the last active owner; make another admin an owner first, so someone can still manage admins")
            }
            try db.execute("UPDATE admins SET disabled = ?, updated_at = ? WHERE id = ?", [.integer(disabled ? 1 : 0), .integer(now), .text(id)])
            if disabled { try db.execute("DELETE FROM sessions WHERE admin_id = ?", [.text(id)]) }
            var after = before
            after.disabled = disabled
            try AuditLog.record(db, at: now, actor: actor, action: disabled ? "admin.disable" : "admin.enable", environmentID: nil, changes: [
                AuditChange(field: "admins", before: .string(Self.describe(before)), after: .string(Self.describe(after))),
            ])
            return after
        }
    }

    /// Changes an admin's own password: verifies `current` (a `ValidationError` at `/current` when wrong), checks
    /// the new one against the policy (at `/password`), stores its argon2id hash and ends the admin's other sessions
    /// (all but the one whose cookie token is `keeping`). The audit entry says the password changed, never what to.
    public func changePassword(id: String, current: String, new: String, keeping sessionToken: String? = nil) throws {
        let stored = try store.read { db in try db.queryOne("SELECT \(Self.columns), password_hash FROM admins WHERE id = ?", [.text(id)]) }
        guard let stored else { throw DomainError.notFound("no admin \(id)") }
        let oldHash = try stored.text("password_hash")
        let admin = try Self.admin(stored)
        var errors = FieldErrors()
        if !hasher.verify(current, encoded: oldHash) { errors.add("/current", "is not your current password") }
        for error in Self.validate(email: admin.email, password: new).errors where error.pointer == "/password" {
            errors.add(error.pointer, error.message)
        }
        try errors.throwIfAny()
        let newHash = try hasher.hash(new)
        let now = store.clock()
        defer { store.sessionCache.invalidate() }
        try store.write { db in
            // Compare-and-swap: a concurrent change of the same password makes this one fail rather than win silently.
            let changed = try db.execute("UPDATE admins SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?",
                                         [.text(newHash), .integer(now), .text(id), .text(oldHash)])
            guard changed == 1 else { throw DomainError.conflict("the password was changed meanwhile; sign in again") }
            let keep = sessionToken.map { RandomToken.hash($0) } ?? []
            try db.execute("DELETE FROM sessions WHERE admin_id = ? AND token_hash != ?", [.text(id), .blob(keep)])
            try AuditLog.record(db, at: now, actor: Actor(kind: .admin, id: admin.id, name: admin.email), action: "admin.password", environmentID: nil,
                                changes: [AuditChange(field: "password", before: AuditChange.sealed, after: AuditChange.sealed)])
        }
    }

    static func admin(in db: any SQLConnection, id: String) throws -> Admin {
        guard let row = try db.queryOne("SELECT \(columns) FROM admins WHERE id = ?", [.text(id)]) else { throw DomainError.notFound("no admin \(id)") }
        return try admin(row)
    }

    static func otherActiveOwners(_ db: any SQLConnection, besides id: String) throws -> Int {
        try db.queryOne("SELECT COUNT(*) AS n FROM admins WHERE role = 'owner' AND disabled = 0 AND id != ?", [.text(id)])?.int("n") ?? 0
    }

    /// How an admin appears in audit entries: e-mail, role and whether disabled.
    static func describe(_ admin: Admin) -> String {
        "\(admin.email) (\(admin.role.rawValue)\(admin.disabled ? ", disabled" : ""))"
    }
}
