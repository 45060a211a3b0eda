import Foundation
import Crypto
import Storage

/// Signing in and out: argon2id password checks, throttling per account and per address, sessions with idle and
/// absolute expiry. Unknown e-mails cost the same argon2id work as known ones. Every attempt is audited, never with
/// the password.
public struct Sessions: Sendable {
    let store: Store
    let hasher: PasswordHasher
    public let policy: SessionPolicy
    /// A hash verified for unknown accounts, so they take as long as known ones.
    let decoyHash: String

    public init(store: Store, hasher: PasswordHasher = PasswordHasher(), policy: SessionPolicy = SessionPolicy()) throws {
        self.store = store
        self.hasher = hasher
        self.policy = policy
        decoyHash = try hasher.decoy()
    }

    /// Checks the password and opens a session; returns the cookie token (shown to the browser, never stored).
    /// Throws `DomainError.throttled` while the account or address must wait, `DomainError.unauthenticated` otherwise.
    public func login(email: String, password: String, address: String) throws -> (token: String, session: Session) {
        let now = store.clock()
        let email = email.trimmingCharacters(in: .whitespaces)
        let subjects = ["account:" + email.lowercased(), "address:" + address]
        // The throttle is checked, and the attempt counted against the account, in one transaction before argon2id
        // runs: otherwise parallel attempts all pass the check while it runs. A success removes the account's
        // failures.
        var throttle: (seconds: Int64, locked: Bool)?
        try store.write { db in
            if let wait = try waitTime(db, subjects: subjects, now: now) {
                throttle = wait
                return
            }
            // The attempt counts against the account before its password is checked, so parallel guesses at one
            // account cannot outrun the throttle. Against the address only once it has failed: many people behind
            // one proxy may sign in at the same moment.
            try db.execute("INSERT INTO login_failures (subject, at) VALUES (?, ?)", [.text(subjects[0]), .integer(now)])
        }
        if let wait = throttle {
            try audit(now: now, action: "admin.login.throttled", email: email, address: address, adminID: nil)
            throw DomainError.throttled(wait.locked
                ? "too many failed sign-ins: sign-in is locked for \(Self.minutes(wait.seconds)); try again later or ask an owner to reset your password"
                : "too many failed sign-ins: wait \(wait.seconds == 1 ? "1 second" : "\(wait.seconds) seconds") before trying again", retryAfter: Int(wait.seconds))
        }
        let row = try store.read { db in try db.queryOne("SELECT \(Admins.columns), password_hash FROM admins WHERE email = ?", [.text(email)]) }
        let stored = try row?.text("password_hash") ?? decoyHash
        let valid = hasher.verify(password, encoded: stored) && row != nil
        guard let row, valid, !(try row.bool("disabled")) else {
            try store.write { db in
                try db.execute("INSERT INTO login_failures (subject, at) VALUES (?, ?)", [.text(subjects[1]), .integer(now)])
            }
            try audit(now: now, action: "admin.login.failed", email: email, address: address, adminID: try row?.text("id"))
            throw DomainError.unauthenticated("that e-mail and password do not match an active admin")
        }
        let admin = try Admins.admin(row)
        let token = try RandomToken.secret(prefix: "")
        let csrf = try RandomToken.secret(prefix: "")
        let rehash = hasher.needsRehash(stored) ? try hasher.hash(password) : nil
        try store.write { db in
            try db.execute("DELETE FROM login_failures WHERE subject = ?", [.text(subjects[0])])
            if let rehash {
                try db.execute("UPDATE admins SET password_hash = ?, updated_at = ? WHERE id = ?", [.text(rehash), .integer(now), .text(admin.id)])
            }
            try db.execute(
                "INSERT INTO sessions (token_hash, admin_id, csrf_token, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)",
                [.blob(RandomToken.hash(token)), .text(admin.id), .text(csrf), .integer(now), .integer(now)]
            )
            try AuditLog.record(db, at: now, actor: Actor(kind: .admin, id: admin.id, name: admin.email), action: "admin.login", environmentID: nil,
                                changes: [AuditChange(field: "address", before: .null, after: .string(address))])
        }
        return (token, Session(admin: admin, csrfToken: csrf, createdAt: now, lastSeenAt: now, flash: nil))
    }

    /// The live session a cookie token names, its flash message taken; nil when unknown, expired or its admin disabled.
    /// A session seen before is answered from memory (see `ReadCache`) until it must be written: its flash taken, its
    /// last-seen time moved (once per `touchResolution`), or it ended.
    public func session(_ token: String) throws -> Session? {
        guard !token.isEmpty else { return nil }
        let now = store.clock()
        let hash = RandomToken.hash(token)
        let found = try store.sessionCache.value(hash) {
            try store.read { db in
                try db.queryOne(
                    """
                    SELECT s.token_hash, s.csrf_token, s.flash, s.flash_tone, s.created_at, s.last_seen_at,
                           a.id AS aid, a.email, a.role, a.disabled, a.created_at AS admin_created
                    FROM sessions s JOIN admins a ON a.id = s.admin_id WHERE s.token_hash = ?
                    """, [.blob(hash)])
            }.map { row in (session: try Self.session(row), disabled: try row.bool("disabled"), hash: try row.blob("token_hash")) }
        }
        guard let found, constantTimeEquals(found.hash, hash) else { return nil }
        var session = found.session
        guard now - session.lastSeenAt < policy.idleTimeout, now - session.createdAt < policy.absoluteTimeout, !found.disabled else {
            defer { store.sessionCache.invalidate() }
            try store.write { db in try db.execute("DELETE FROM sessions WHERE token_hash = ?", [.blob(hash)]) }
            return nil
        }
        if session.flash != nil || now - session.lastSeenAt >= policy.touchResolution {
            defer { store.sessionCache.invalidate() }
            try store.write { db in
                try db.execute("UPDATE sessions SET last_seen_at = ?, flash = NULL, flash_tone = NULL WHERE token_hash = ?", [.integer(now), .blob(hash)])
            }
        }
        session.lastSeenAt = now
        return session
    }

    static func session(_ row: Row) throws -> Session {
        guard let role = Admin.Role(rawValue: try row.text("role")) else {
            throw StorageError(.malformedRow, "admins.role is not owner, editor or viewer")
        }
        let admin = Admin(id: try row.text("aid"), email: try row.text("email"), role: role, disabled: false, createdAt: try row.integer("admin_created"))
        var flash: Flash?
        if let message = try row.optionalText("flash") {
            // A flash written before tones were stored (migration 0007) has none: it reads as done, as it showed.
            let tone = try row.optionalText("flash_tone")
            guard let parsed = Flash.Tone(rawValue: tone ?? Flash.Tone.done.rawValue) else {
                throw StorageError(.malformedRow, "sessions.flash_tone is not a known tone")
            }
            flash = Flash(message, tone: parsed)
        }
        return Session(admin: admin, csrfToken: try row.text("csrf_token"), createdAt: try row.integer("created_at"),
                       lastSeenAt: try row.integer("last_seen_at"), flash: flash)
    }

    /// Leaves a message for the session's next page.
    public func flash(_ token: String, _ flash: Flash) throws {
        defer { store.sessionCache.invalidate() }
        try store.write { db in
            try db.execute("UPDATE sessions SET flash = ?, flash_tone = ? WHERE token_hash = ?",
                           [.text(flash.message), .text(flash.tone.rawValue), .blob(RandomToken.hash(token))])
        }
    }

    /// Deletes sessions past their idle or absolute expiry (a session is otherwise deleted only when presented
    /// again), at most `limit` per statement; returns how many.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func pruneExpired(limit: Int = 10_000) throws -> Int {
        let now = store.clock()
        defer { store.sessionCache.invalidate() }
        var total = 0
        while true {
            let rows = try store.write { db in
                try db.query(
                    """
                    DELETE FROM sessions WHERE token_hash IN
                      (SELECT token_hash FROM sessions WHERE last_seen_at <= ? OR created_at <= ? LIMIT ?) RETURNING token_hash
                    """,
                    [.integer(now - policy.idleTimeout), .integer(now - policy.absoluteTimeout), .integer(Int64(limit))])
            }
            total += rows.count
            if rows.count < limit { return total }
        }
    }

    /// Ends a session.
    public func logout(_ token: String) throws {
        defer { store.sessionCache.invalidate() }
        try store.write { db in try db.execute("DELETE FROM sessions WHERE token_hash = ?", [.blob(RandomToken.hash(token))]) }
    }

    /// How long the subjects must wait before another attempt, if at all. A subject with `lockAfterFailures`
    /// failures within any `lockWindow` is locked for `lockWindow` from the failure that reached the count (a
    /// sliding count alone would unlock as soon as the burst's first failures aged out, minutes early); otherwise
    /// `delayAfterFailures` failures within the window make the next attempt wait, doubling up to `maxDelay`.
    func waitTime(_ db: any SQLConnection, subjects: [String], now: Int64) throws -> (seconds: Int64, locked: Bool)? {
        var longest: (seconds: Int64, locked: Bool)?
        for subject in subjects {
            // A lock reached up to a window ago needs the failures of the window before it too.
            let times = try db.query("SELECT at FROM login_failures WHERE subject = ? AND at > ? ORDER BY at",
                                     [.text(subject), .integer(now - 2 * policy.lockWindow)]).map { try $0.integer("at") }
            var lockedUntil: Int64 = 0
            var first = 0
            for (i, at) in times.enumerated() {
                while times[first] <= at - policy.lockWindow { first += 1 }
                if i - first + 1 >= policy.lockAfterFailures { lockedUntil = max(lockedUntil, at + policy.lockWindow) }
            }
            let wait: (Int64, Bool)
            let recent = times.filter { $0 > now - policy.lockWindow }
            if lockedUntil > now {
                wait = (lockedUntil - now, true)
            } else if recent.count >= policy.delayAfterFailures, let last = recent.last {
                let delay = min(policy.maxDelay, Int64(1) << min(recent.count - policy.delayAfterFailures, 20))
                wait = (last + delay - now, false)
            } else {
                continue
            }
            if wait.0 > 0, wait.0 > (longest?.seconds ?? 0) { longest = (wait.0, wait.1) }
        }
        return longest
    }

    /// Records a refused sign-in. The typed e-mail is written only when it names an admin: text typed into the e-mail
    /// field can be a password typed into the wrong field, and must not reach the audit log.
    func audit(now: Int64, action: String, email: String, address: String, adminID: String?) throws {
        try store.write { db in
            let known = try db.queryOne("SELECT id FROM admins WHERE email = ?", [.text(email)])
            let name = known != nil ? email : "(unknown e-mail)"
            try AuditLog.record(db, at: now, actor: Actor(kind: .admin, id: adminID ?? known?.text("id"), name: name), action: action, environmentID: nil,
                                changes: [AuditChange(field: "address", before: .null, after: .string(address))])
        }
    }

    static func minutes(_ seconds: Int64) -> String {
        let m = (seconds + 59) / 60
        return m == 1 ? "1 minute" : "\(m) minutes"
    }
}
