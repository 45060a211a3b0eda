import CSQLite
import Foundation
import Locks
import Storage
import Synchronization

/// SQLite behind the storage seam (``SQLDatabase``): a ``Database`` (one writer, a pool of readers, WAL), its
/// ``Migrator``, its online backup, and the checkpoint that copies the write-ahead log into the file, one run at a
/// time (``maintain()``) paced as ``CheckpointPacing`` says.
public final class SQLiteEngine: SQLDatabase {
    /// The database.
    public let database: Database
    private let pacing: Mutex<CheckpointPacing>

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

    /// One server holds a SQLite file (`gatehouse serve` takes a lock beside it).
    public var isShared: Bool { false }

    public var statementsAreRoundTrips: Bool { false }

    /// SQLite has one writer.
    public var concurrentWriteTransactions: Int { 1 }

    public func awaitChange(channel: String, milliseconds: Int) throws -> Bool { false }

    /// SQLite's write-ahead log is copied into the file by a job of the layer above (``maintain()``), so that
    /// commits do not stop to do it.
    public var needsMaintenance: Bool { true }

    /// One checkpoint; answers the wait ``CheckpointPacing`` gives after it (every 20 ms while commits come, every
    /// half second when idle).
    public func maintain() throws -> Double {
        do {
            let log = try database.checkpoint()
            return pacing.withLock { $0.next(walPages: log.walPages, copiedPages: log.copiedPages) }
        } catch {
            _ = pacing.withLock { $0.next(walPages: nil, copiedPages: nil) }
            throw error
        }
    }
}

/// A SQLite connection is the seam's connection as it is: `execute` answers the rows changed, `savepoint` nests.
extension Connection: SQLConnection {}
