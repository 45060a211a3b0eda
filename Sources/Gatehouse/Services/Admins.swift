import Foundation
import Crypto
import SQLite

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
        try store.database.write { db in
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
        try store.database.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM admins")?["n"].int ?? 0 }
    }

    public func list() throws -> [Admin] {
        try store.database.read { db in try db.query("SELECT * FROM admins ORDER BY created_at, email").map(Self.admin) }
    }

    static func admin(_ row: Row) -> Admin {
        Admin(
            id: row["id"].string ?? "",
            email: row["email"].string ?? "",
            role: Admin.Role(rawValue: row["role"].string ?? "") ?? .viewer,
            disabled: row["disabled"].bool ?? true,
            createdAt: row["created_at"].int64 ?? 0
        )
    }
}

extension Admins {
    /// Forgets login failures older than a day.
    public func pruneLoginFailures() throws {
        let cutoff = store.clock() - 86_400
        try store.database.write { db in try db.execute("DELETE FROM login_failures WHERE at < ?", [.integer(cutoff)]) }
    }
}
