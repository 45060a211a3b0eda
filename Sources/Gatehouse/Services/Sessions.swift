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
    /// Runs between the password check and the session's opening: tests interleave a concurrent change there.
    var afterPasswordCheck: @Sendable () throws -> Void = {}

    /// Sessions (with their stored hash and whether their admin is disabled) by the hash of their cookie token;
    /// follows the sessions and the admins.
    let byHash: ReadCache<[UInt8], (session: Session, disabled: Bool, hash: [UInt8])>

    /// The service over `store`: one per domain (``Domain``), as its cache follows the store's writes for as long as
    /// the store lives.
    init(_: Wiring, store: Store, hasher: PasswordHasher, policy: SessionPolicy = SessionPolicy()) throws {
        self.store = store
        byHash = store.cache(limit: 10_000, following: [.sessions, .admins])
        self.hasher = hasher
        self.policy = policy
        decoyHash = try hasher.decoy()
    }

    /// Checks the password and opens a session; returns the cookie token (shown to the browser, never stored).
    /// Throws `DomainError.throttled` while the account or address must wait, `DomainError.unauthenticated` otherwise.
    public func login(email: String, password: String, address: String) throws -> (token: String, session: Session) {
        let now = store.clock()
        let email = email.trimmingCharacters(in: .whitespaces)
        let addressSubject = "address:" + AddressNetwork.key(address)
        // The throttle is checked, and the attempt counted against the account, in one transaction before argon2id
        // runs: otherwise parallel attempts all pass the check while it runs. The account is the admin the e-mail
        // finds (PostgreSQL's collation equates spellings that lower-casing does not: soft hyphens, fullwidth
        // letters…), so every spelling that would sign in as an admin counts against that admin. The admins'
        // revision row is held for the transaction: on READ COMMITTED, attempts through several connections or
        // servers would otherwise each read the failures before any of them is written.
        var throttle: (seconds: Int64, locked: Bool)?
        let (accountSubject, found) = try store.write { db in
            try RevisionsTable.lock(db, .admins)
            let found = try AdminsTable.withPassword(db, email: email)
            let account = Self.accountSubject(adminID: found?.admin.id, email: email)
            if let wait = try waitTime(db, subjects: [account, addressSubject], now: now) {
                throttle = wait
                return (account, found)
            }
            // The attempt counts against the account before its password is checked, so parallel guesses at one
            // account cannot outrun the throttle. Against the address only once it has failed: many people behind
            // one proxy may sign in at the same moment.
            try LoginFailuresTable.record(db, subject: account, at: now)
            return (account, found)
        }
        if let wait = throttle {
            try audit(now: now, action: "admin.login.throttled", email: email, address: address, adminID: nil)
            throw DomainError.throttled(wait.locked
                ? "too many failed sign-ins: sign-in is locked for \(Self.minutes(wait.seconds)); try again later or ask an owner to reset your password"
                : "too many failed sign-ins: wait \(wait.seconds == 1 ? "1 second" : "\(wait.seconds) seconds") before trying again", retryAfter: Int(wait.seconds))
        }
        let stored = found?.passwordHash ?? decoyHash
        let valid = hasher.verify(password, encoded: stored) && found != nil
        try afterPasswordCheck()
        guard let admin = found?.admin, valid, !admin.disabled else {
            try refuse(now: now, email: email, address: address, adminID: found?.admin.id)
        }
        let token = try RandomToken.secret(prefix: "")
        let csrf = try RandomToken.secret(prefix: "")
        let rehash = hasher.needsRehash(stored) ? try hasher.hash(password) : nil
        // The session is opened only while the hash just verified is still the admin's, and the admin still active,
        // under the lock a password change and a disabling take too: a sign-in with the old password that straddles
        // a change of it (or the admin's disabling) opens nothing.
        let opened = try store.write { db in
            try RevisionsTable.lock(db, .admins)
            guard let current = try AdminsTable.withPassword(db, id: admin.id), current.passwordHash == stored, !current.admin.disabled else {
                return false
            }
            try LoginFailuresTable.clear(db, subject: accountSubject)
            if let rehash { try AdminsTable.setPasswordHash(db, id: admin.id, to: rehash, expected: stored, now: now) }
            try SessionsTable.insert(db, tokenHash: RandomToken.hash(token), adminID: admin.id, csrfToken: csrf, now: now)
            try AuditLogTable.record(db, at: now, actor: AuditActor(kind: .admin, id: admin.id, name: admin.email), action: "admin.login", environmentID: nil,
                                changes: [AuditChange(field: "address", before: .null, after: .string(address))])
            return true
        }
        guard opened else { try refuse(now: now, email: email, address: address, adminID: admin.id) }
        return (token, Session(admin: admin, csrfToken: csrf, createdAt: now, lastSeenAt: now, flash: nil))
    }

    /// The live session a cookie token names, its flash message taken; nil when unknown, expired or its admin disabled.
    /// A session seen before is answered from memory (see `ReadCache`) until it must be written: its flash taken, its
    /// last-seen time moved (once per `touchResolution`), or it ended.
    public func session(_ token: String) throws -> Session? {
        guard !token.isEmpty else { return nil }
        let now = store.clock()
        let hash = RandomToken.hash(token)
        var found = try byHash.value(hash) {
            try store.read { db in try SessionsTable.get(db, tokenHash: hash) }
        }
        // The last-seen time is bookkeeping no cache follows: another server may have moved it since this one cached
        // the session, so a session that looks idle here is read again before it is ended.
        if let cached = found, now - cached.session.lastSeenAt >= policy.idleTimeout {
            found = try store.read { db in try SessionsTable.get(db, tokenHash: hash) }
        }
        guard let found, constantTimeEquals(found.hash, hash) else { return nil }
        var session = found.session
        guard now - session.lastSeenAt < policy.idleTimeout, now - session.createdAt < policy.absoluteTimeout, !found.disabled else {
            try store.write { db in try SessionsTable.delete(db, tokenHash: hash) }
            return nil
        }
        if session.flash != nil {
            // Taking the flash is a change of what the cache serves.
            try store.write { db in try SessionsTable.touch(db, tokenHash: hash, now: now) }
        } else if now - session.lastSeenAt >= policy.touchResolution, byHash.modify(hash, { cached in
            guard now - cached.session.lastSeenAt >= policy.touchResolution else { return false }
            cached.session.lastSeenAt = now
            return true
        }) ?? true {
            // Claimed under the cache's lock, so concurrent pages of one session write it once.
            try store.write { db in try SessionsTable.markSeen(db, tokenHash: hash, now: now) }
        }
        session.lastSeenAt = now
        return session
    }


    /// Leaves a message for the session's next page.
    public func flash(_ token: String, _ flash: Flash) throws {
        try store.write { db in
            try SessionsTable.setFlash(db, tokenHash: RandomToken.hash(token), flash)
        }
    }

    /// Deletes sessions past their idle or absolute expiry (a session is otherwise deleted only when presented
    /// again), at most `limit` per statement; returns how many.
    /// - Throws: `StorageError`.
    @discardableResult
    public func pruneExpired(limit: Int = 10_000) throws -> Int {
        let now = store.clock()
        return try store.purge(limit: limit) { db in
            try SessionsTable.purge(db, idleBefore: now - policy.idleTimeout, createdBefore: now - policy.absoluteTimeout, limit: limit)
        }
    }

    /// Ends a session.
    public func logout(_ token: String) throws {
        try store.write { db in try SessionsTable.delete(db, tokenHash: RandomToken.hash(token)) }
    }

    /// How long the subjects must wait before another attempt, if at all. A subject with `lockAfterFailures`
    /// failures within any `lockWindow` is locked for `lockWindow` from the failure that reached the count (a
    /// sliding count alone would unlock as soon as the burst's first failures aged out, minutes early); otherwise
    /// `delayAfterFailures` failures within the window make the next attempt wait, doubling up to `maxDelay`.
    func waitTime(_ db: any SQLConnection, subjects: [String], now: Int64) throws -> (seconds: Int64, locked: Bool)? {
        var longest: (seconds: Int64, locked: Bool)?
        for subject in subjects {
            // A lock reached up to a window ago needs the failures of the window before it too.
            let times = try LoginFailuresTable.times(db, subject: subject, since: now - 2 * policy.lockWindow)
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

    /// The throttle's subject for an account: the admin's id when the e-mail names one, else the e-mail as typed,
    /// lower-cased (no admin to protect, but the same work as for one).
    static func accountSubject(adminID: String?, email: String) -> String {
        "account:" + (adminID ?? email.lowercased())
    }

    /// Counts a refused attempt against the address, audits it and throws `DomainError.unauthenticated`.
    func refuse(now: Int64, email: String, address: String, adminID: String?) throws -> Never {
        try store.write { db in try LoginFailuresTable.record(db, subject: "address:" + AddressNetwork.key(address), at: now) }
        try audit(now: now, action: "admin.login.failed", email: email, address: address, adminID: adminID)
        throw DomainError.unauthenticated("that e-mail and password do not match an active admin")
    }

    /// Records a refused sign-in. The typed e-mail is written only when it names an admin: text typed into the e-mail
    /// field can be a password typed into the wrong field, and must not reach the audit log.
    func audit(now: Int64, action: String, email: String, address: String, adminID: String?) throws {
        try store.write { db in
            let known = try AdminsTable.id(db, email: email)
            let name = known != nil ? email : "(unknown e-mail)"
            try AuditLogTable.record(db, at: now, actor: AuditActor(kind: .admin, id: adminID ?? known, name: name), action: action, environmentID: nil,
                                changes: [AuditChange(field: "address", before: .null, after: .string(address))])
        }
    }

    static func minutes(_ seconds: Int64) -> String {
        let m = (seconds + 59) / 60
        return m == 1 ? "1 minute" : "\(m) minutes"
    }
}
