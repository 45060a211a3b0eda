import CSQLite
import Foundation
import Locks
import Storage
import Synchronization

/// SQLite behind the storage seam (``SQLDatabase``): a ``Database`` (one writer, a pool of readers, WAL), its
/// ``Migrator``, its online backup, and the background checkpointer that copies the write-ahead log into the file
/// as ``CheckpointPacing`` says (every 20 ms while commits come, every half second when idle), so that commits do not
/// stop to do it.
public final class SQLiteEngine: SQLDatabase {
    /// The database.
    public let database: Database
    private let pacing: Mutex<CheckpointPacing>
    private let checkpointer = Mutex<Thread?>(nil)
    private let stopping = DispatchSemaphore(value: 0)

    /// The engine over `database`, checkpointing as `pacing` says once started.
    public init(_ database: Database, pacing: CheckpointPacing = CheckpointPacing()) {
        self.database = database
        self.pacing = Mutex(pacing)
    }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try database.read { try body($0) }
    }

    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try database.write { try body($0) }
    }

    /// SQLite's result codes in the seam's words: constraint violations by kind, `SQLITE_BUSY`/`SQLITE_LOCKED`
    /// as busy, a file that cannot be opened, read or written as unavailable.
    public func failure(of error: any Error) -> StorageError? {
        if let error = error as? StorageError { return error }
        guard let error = error as? DatabaseError else { return nil }
        let kind: StorageError.Kind
        switch error.kind {
        case .uniqueConstraint, .primaryKeyConstraint: kind = .unique
        case .foreignKeyConstraint: kind = .foreignKey
        case .checkConstraint, .notNullConstraint: kind = .check
        case .busy: kind = .busy
        case .other:
            switch error.primaryCode {
            case SQLITE_LOCKED: kind = .busy
            case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_FULL: kind = .unavailable
            default: kind = .other
            }
        }
        return StorageError(kind, error.description)
    }

    public var pendingWrites: Int { database.pendingWrites }

    public func migrate(directory: String) throws -> [String] {
        try Migrator(directory: directory).migrate(database)
    }

    public func migrationStatus(directory: String) throws -> (applied: [String], pending: [String]) {
        try Migrator(directory: directory).status(database)
    }

    public func backup(to path: String) throws {
        try database.backup(to: path)
    }

    /// Starts the checkpointer thread (`gh-checkpoint`) once.
    /// One server holds a SQLite file (`gatehouse serve` takes a lock beside it).
    public var isShared: Bool { false }

    public var statementsAreRoundTrips: Bool { false }

    /// SQLite has one writer.
    public var concurrentWriteTransactions: Int { 1 }

    public func awaitChange(channel: String, milliseconds: Int) throws -> Bool { false }

    public func startMaintenance(failed: @escaping @Sendable (String?) -> Void) {
        let started = checkpointer.withLock { thread -> Bool in
            guard thread == nil else { return false }
            let made = Thread { [self] in
                Thread.current.name = "gh-checkpoint"
                var lastFailure: String?
                while true {
                    var failure: String?
                    var log: (walPages: Int, copiedPages: Int)?
                    do {
                        log = try database.checkpoint()
                    } catch {
                        failure = "\(error)"
                    }
                    // A failing checkpoint (a full disk) is told when it starts failing or fails differently, not 50
                    // times a second.
                    if failure != lastFailure { failed(failure) }
                    lastFailure = failure
                    let wait = pacing.withLock { $0.next(walPages: log?.walPages, copiedPages: log?.copiedPages) }
                    if stopping.wait(timeout: .now() + wait) == .success { return }
                }
            }
            made.name = "gh-checkpoint"
            thread = made
            return true
        }
        if started { checkpointer.withLock { $0?.start() } }
    }

    public func stopMaintenance() {
        if checkpointer.withLock({ $0 != nil }) { stopping.signal() }
    }
}

/// A SQLite connection is the seam's connection as it is: `execute` answers the rows changed, `savepoint` nests.
extension Connection: SQLConnection {}
