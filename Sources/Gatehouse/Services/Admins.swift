import Foundation
import Crypto
import Storage

/// Dashboard accounts: creation (first admin, CLI, owners), password checks with argon2id, roles.
public struct Admins: Sendable {
    let store: Store
    let hasher: PasswordHasher
    public static let minimumPasswordLength = 12
    public static let maximumPasswordLength = 1024

    init(_: Wiring, store: Store, hasher: PasswordHasher) {
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

    /// Creates an account; a duplicate e-mail is a `ValidationError` on `/email`. With `onlyIfFirst` (the setup link)
    /// it is created only while no admin exists, checked in its transaction, so that two setup forms sent at once (to
    /// one server or two) make one owner; the other gets `DomainError.conflict`.
    @discardableResult
    public func create(email: String, password: String, role: Admin.Role, actor: AuditActor, onlyIfFirst: Bool = false) throws -> Admin {
        let email = email.trimmingCharacters(in: .whitespaces)
        try Self.validate(email: email, password: password).throwIfAny()
        let hash = try hasher.hash(password)
        let now = store.clock()
        let admin = Admin(id: try RandomToken.identifier(prefix: "adm_"), email: email, role: role, disabled: false, createdAt: now)
        try store.write { db in
            if onlyIfFirst {
                try RevisionsTable.lock(db, .admins)
                guard try AdminsTable.count(db) == 0 else { throw DomainError.conflict("an admin exists already: sign in instead") }
            }
            if try AdminsTable.id(db, email: email) != nil {
                throw ValidationError("/email", "is already an admin's e-mail")
            }
            try AdminsTable.insert(db, admin, passwordHash: hash)
            try AuditLogTable.record(db, at: now, actor: actor, action: "admin.create", environmentID: nil, changes: [
                AuditChange(field: "admins", before: .null, after: .string("\(email) (\(role.rawValue))")),
            ])
        }
        return admin
    }

    /// How many admins exist (zero on a fresh install: the setup link is offered).
    public func count() throws -> Int {
        try store.read { db in try AdminsTable.count(db) }
    }

    public func list() throws -> [Admin] {
        try store.read { db in try AdminsTable.all(db) }
    }

}

extension Admins {
    /// Forgets login failures older than a day.
    public func pruneLoginFailures() throws {
        let cutoff = store.clock() - 86_400
        try store.write { db in try LoginFailuresTable.prune(db, before: cutoff) }
    }
}

extension Admins {
    /// One admin by id; throws `DomainError.notFound` when there is none.
    public func get(_ id: String) throws -> Admin {
        guard let admin = try store.read({ db in try AdminsTable.get(db, id: id) }) else {
            throw DomainError.notFound("no admin \(id)")
        }
        return admin
    }

    /// Gives an admin another role, audited. Throws `DomainError.notFound` for an unknown id and
    /// `DomainError.conflict` when it would demote the last active owner (nobody could manage admins any more).
    @discardableResult
    public func setRole(id: String, role: Admin.Role, actor: AuditActor) throws -> Admin {
        let now = store.clock()
        return try store.write { db in
            // Every change that could leave no active owner runs one at a time (the admins' revision row): on READ
            // COMMITTED two owners demoting or disabling each other at once would each still see the other active.
            try RevisionsTable.lock(db, .admins)
            let before = try Self.admin(in: db, id: id)
            guard before.role != role else { return before }
            if before.role == .owner, !before.disabled, try Self.otherActiveOwners(db, besides: id) == 0 {
                throw DomainError.conflict("cannot make \(before.email) \(role == .editor ? "an" : "a") \(role.rawValue): they are the last active owner; make another admin an owner first, so someone can still manage admins")
            }
            try AdminsTable.setRole(db, id: id, role: role, now: now)
            var after = before
            after.role = role
            try AuditLogTable.record(db, at: now, actor: actor, action: "admin.role", environmentID: nil, changes: [
                AuditChange(field: "admins", before: .string(Self.describe(before)), after: .string(Self.describe(after))),
            ])
            return after
        }
    }

    /// Disables (ending every session of the admin at once) or enables an admin, audited. Throws
    /// `DomainError.notFound` for an unknown id and `DomainError.conflict` when it would disable the last active owner.
    @discardableResult
    public func setDisabled(id: String, disabled: Bool, actor: AuditActor) throws -> Admin {
        let now = store.clock()
        return try store.write { db in
            // Every change that could leave no active owner runs one at a time (the admins' revision row): on READ
            // COMMITTED two owners demoting or disabling each other at once would each still see the other active.
            try RevisionsTable.lock(db, .admins)
            let before = try Self.admin(in: db, id: id)
            guard before.disabled != disabled else { return before }
            if disabled, before.role == .owner, try Self.otherActiveOwners(db, besides: id) == 0 {
                throw DomainError.conflict("cannot disable \(before.email): they are the last active owner; make another admin an owner first, so someone can still manage admins")
            }
            try AdminsTable.setDisabled(db, id: id, disabled: disabled, now: now)
            if disabled { try SessionsTable.deleteAll(db, adminID: id) }
            var after = before
            after.disabled = disabled
            try AuditLogTable.record(db, at: now, actor: actor, action: disabled ? "admin.disable" : "admin.enable", environmentID: nil, changes: [
                AuditChange(field: "admins", before: .string(Self.describe(before)), after: .string(Self.describe(after))),
            ])
            return after
        }
    }

    /// Changes an admin's own password: verifies `current` (a `ValidationError` at `/current` when wrong), checks
    /// the new one against the policy (at `/password`), stores its argon2id hash and ends the admin's other sessions
    /// (all but the one whose cookie token is `keeping`). The audit entry says the password changed, never what to.
    public func changePassword(id: String, current: String, new: String, keeping sessionToken: String? = nil) throws {
        guard let (admin, oldHash) = try store.read({ db in try AdminsTable.withPassword(db, id: id) }) else {
            throw DomainError.notFound("no admin \(id)")
        }
        var errors = FieldErrors()
        if !hasher.verify(current, encoded: oldHash) { errors.add("/current", "is not your current password") }
        for error in Self.validate(email: admin.email, password: new).errors where error.pointer == "/password" {
            errors.add(error.pointer, error.message)
        }
        try errors.throwIfAny()
        let newHash = try hasher.hash(new)
        let now = store.clock()
        try store.write { db in
            // Under the lock a sign-in takes to open its session, so one verified with the old hash opens nothing.
            try RevisionsTable.lock(db, .admins)
            // Compare-and-swap: a concurrent change of the same password makes this one fail rather than win silently.
            guard try AdminsTable.setPasswordHash(db, id: id, to: newHash, expected: oldHash, now: now) else { throw DomainError.conflict("the password was changed meanwhile; sign in again") }
            let keep = sessionToken.map { RandomToken.hash($0) } ?? []
            try SessionsTable.deleteAll(db, adminID: id, keeping: keep)
            try AuditLogTable.record(db, at: now, actor: AuditActor(kind: .admin, id: admin.id, name: admin.email), action: "admin.password", environmentID: nil,
                                changes: [AuditChange(field: "password", before: AuditChange.sealed, after: AuditChange.sealed)])
        }
    }

    static func admin(in db: any SQLConnection, id: String) throws -> Admin {
        guard let admin = try AdminsTable.get(db, id: id) else { throw DomainError.notFound("no admin \(id)") }
        return admin
    }

    static func otherActiveOwners(_ db: any SQLConnection, besides id: String) throws -> Int {
        try AdminsTable.otherActiveOwners(db, besides: id)
    }

    /// How an admin appears in audit entries: e-mail, role and whether disabled.
    static func describe(_ admin: Admin) -> String {
        "\(admin.email) (\(admin.role.rawValue)\(admin.disabled ? ", disabled" : ""))"
    }
}
