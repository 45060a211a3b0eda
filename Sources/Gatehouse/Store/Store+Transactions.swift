import Storage
import Synchronization

/// The domain's way into the database: transactions whose failures are in the domain's words, mapped here once for
/// every engine and both write paths (a plain write and a group commit), so the layers above never see an engine's
/// errors.
extension Store {
    /// Runs `body` in a write transaction (one writer at a time). A constraint violation becomes
    /// `DomainError.conflict`, a busy or unreachable database `DomainError.unavailable`; the body's own errors pass
    /// unchanged. On a shared database the revisions of the followed tables it wrote move on in it (for the other
    /// servers); once it ends, this server's caches following them forget them (``Revisions``).
    @discardableResult
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        var written: CachedTables = [], attestedKeys: Set<String> = []
        defer { revisions.wrote(written, attestedKeysOf: attestedKeys) }
        let shared = database.isShared
        do {
            return try database.write { db in
                let tracker = ChangeTracker(db)
                defer { (written, attestedKeys) = (tracker.written, tracker.attestedKeyEnvironments) }
                let value = try body(tracker)
                if shared { try Self.bump(db, tracker) }
                return value
            }
        } catch {
            throw domainError(error)
        }
    }

    /// Deletes in short write transactions until one deletes fewer than `limit` rows (`delete` answers how many it
    /// deleted, at most `limit` a table); returns how many went. The writer is never held for a whole purge.
    @discardableResult
    func purge(limit: Int, _ delete: (any SQLConnection) throws -> Int) throws -> Int {
        var total = 0
        while true {
            let n = try write(delete)
            total += n
            if n < limit { return total }
        }
    }

    /// Runs `body` on a reader connection; errors as `write`.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch {
            throw domainError(error)
        }
    }

    /// Runs `change` in a transaction shared with concurrent callers (``GroupCommit``) and returns its result once that
    /// transaction has committed; errors and caches as `write`.
    @discardableResult
    func commit<T: Sendable>(_ change: @escaping @Sendable (any SQLConnection) throws -> T) throws -> T {
        let written = WrittenTables()
        defer { revisions.wrote(written.tables, attestedKeysOf: written.attestedKeys) }
        let shared = database.isShared
        do {
            return try committer.write { db in
                let tracker = ChangeTracker(db)
                defer { written.add(tracker.written, attestedKeysOf: tracker.attestedKeyEnvironments) }
                let value = try change(tracker)
                if shared { try Self.bump(db, tracker) }
                return value
            }
        } catch {
            throw domainError(error)
        }
    }

    /// Moves on, in the transaction, the revisions of what `tracker` saw written.
    private static func bump(_ db: any SQLConnection, _ tracker: ChangeTracker) throws {
        try RevisionsTable.bump(db, tracker.written)
        try RevisionsTable.bump(db, attestedKeysOf: tracker.attestedKeyEnvironments)
    }

    /// What an error means to the domain: a conflict with stored data, a moment's unavailability, or (for anything
    /// else, the engine's included) itself, which the web layer answers as a 500 without its text.
    func domainError(_ error: any Error) -> any Error {
        guard let failure = database.failure(of: error) else { return error }
        switch failure.kind {
        case .unique, .foreignKey, .check:
            return DomainError.conflict("the change conflicts with stored data (a duplicate or a reference to something missing)")
        case .invalidValue:
            return ValidationError("", "holds the character U+0000 (NUL), which cannot be stored: send text without it")
        case .busy:
            return DomainError.unavailable("the database is busy; retry shortly", retryAfter: 1)
        case .unavailable:
            return DomainError.unavailable("the database cannot be reached; retry shortly", retryAfter: 1)
        case .malformedRow, .other:
            return failure
        }
    }
}

/// The tables a group-committed change wrote, noted on the batch's thread and read by the change's caller once the
/// batch has ended.
private final class WrittenTables: Sendable {
    private let bits = Atomic<UInt16>(0)
    private let environments = Mutex<Set<String>>([])

    func add(_ tables: CachedTables, attestedKeysOf environmentIDs: Set<String>) {
        bits.bitwiseOr(tables.rawValue, ordering: .relaxed)
        if !environmentIDs.isEmpty { environments.withLock { $0.formUnion(environmentIDs) } }
    }

    var tables: CachedTables { CachedTables(rawValue: bits.load(ordering: .relaxed)) }
    var attestedKeys: Set<String> { environments.withLock { $0 } }
}
