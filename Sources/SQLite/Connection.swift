import CSQLite
import Storage

/// One SQLite connection: runs statements, caches them prepared, and owns the `sqlite3` handle.
///
/// Not thread-safe: a `Database` hands one out only inside `read { }` or `write { }`, to one thread at a time.
/// Do not keep it past the closure.
public final class Connection {
    /// The `sqlite3` handle; valid until deinit.
    let handle: OpaquePointer
    /// Prepared statements keyed by their SQL text.
    private var cache: [String: Statement] = [:]
    /// How many statements this connection prepared (cache misses), so tests can see the cache work.
    private(set) var preparedStatementCount = 0
    /// How many `savepoint` calls are running, to name nested savepoints.
    var savepointDepth = 0

    /// The most statements kept prepared; past it the idle ones are dropped (dynamic SQL must not grow it forever).
    static let cacheLimit = 256

    /// Opens `path` with `flags` (https://sqlite.org/c3ref/open.html), with extended result codes on and the
    /// busy timeout set.
    /// - Throws: `DatabaseError` when the file cannot be opened.
    init(path: String, flags: Int32, busyTimeoutMilliseconds: Int32) throws {
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_EXRESCODE, nil)
        guard let handle else {
            throw DatabaseError(code: rc, message: "cannot open database at \(path): out of memory")
        }
        guard rc == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(handle))
            sqlite3_close_v2(handle)
            throw DatabaseError(code: rc, message: "cannot open database at \(path): \(message)")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    /// Finalizes the cached statements, then closes the handle. https://sqlite.org/c3ref/close.html
    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one statement with `arguments` bound to its `?` parameters, stepping it to the end; returns the rows an
    /// `INSERT`, `UPDATE` or `DELETE` changed (0 for other statements). The statement is prepared once and cached.
    /// - Throws: `DatabaseError`, also when `sql` holds more than one statement or the argument count is wrong.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int {
        try withStatement(sql, arguments) { statement in
            // sqlite3_changes64 keeps the last data change's count across later statements of other kinds; the total
            // moves only when this statement changed rows (https://sqlite.org/c3ref/total_changes.html).
            let before = sqlite3_total_changes64(handle)
            while try step(statement) {}
            return sqlite3_total_changes64(handle) == before ? 0 : changes
        }
    }

    /// Runs every statement in `sql`, in order, without arguments (for migrations and schema scripts).
    /// It stops at the first failure; statements before it keep their effect unless a transaction is rolled back.
    /// - Throws: `DatabaseError` naming the statement that failed.
    public func executeScript(_ sql: String) throws {
        let utf8 = Array(sql.utf8)
        try utf8.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            try base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { start in
                var cursor = start
                let end = start + buffer.count
                while cursor < end {
                    var raw: OpaquePointer?
                    var tail: UnsafePointer<CChar>?
                    let rc = sqlite3_prepare_v2(handle, cursor, Int32(clamping: end - cursor), &raw, &tail)
                    guard rc == SQLITE_OK else {
                        throw error(rc, sql: Connection.firstStatement(in: UnsafeBufferPointer(start: cursor, count: end - cursor)))
                    }
                    guard let raw else { break }  // only comments or whitespace remained
                    let statement = Statement(handle: raw, sql: sqlite3_sql(raw).map { String(cString: $0) } ?? sql)
                    while try step(statement) {}
                    guard let tail, tail > cursor else { break }
                    cursor = tail
                }
            }
        }
    }

    /// Runs a query and returns all its rows.
    /// - Throws: `DatabaseError`.
    public func query(_ sql: String, _ arguments: [SQLValue] = []) throws -> [Row] {
        var rows: [Row] = []
        try forEachRow(sql, arguments) { rows.append($0) }
        return rows
    }

    /// Runs a query and returns its first row, or nil when it has none; later rows are not computed.
    /// - Throws: `DatabaseError`.
    public func queryOne(_ sql: String, _ arguments: [SQLValue] = []) throws -> Row? {
        try withStatement(sql, arguments) { statement in
            try step(statement) ? statement.row(columns: statement.columnNames()) : nil
        }
    }

    /// Runs a query and calls `body` with each row as it is stepped, without collecting them.
    /// `body` may run other statements on this connection, the same SQL included.
    /// - Throws: `DatabaseError`, or what `body` throws (which stops the iteration).
    public func forEachRow(_ sql: String, _ arguments: [SQLValue] = [], _ body: (Row) throws -> Void) throws {
        try withStatement(sql, arguments) { statement in
            let columns = statement.columnNames()
            while try step(statement) {
                try body(statement.row(columns: columns))
            }
        }
    }

    /// The rowid of the last successful `INSERT` on this connection. https://sqlite.org/c3ref/last_insert_rowid.html
    public var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(handle)
    }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE` on this connection. https://sqlite.org/c3ref/changes.html
    public var changes: Int {
        Int(sqlite3_changes64(handle))
    }

    /// Whether a transaction is open. https://sqlite.org/c3ref/get_autocommit.html
    var isInTransaction: Bool {
        sqlite3_get_autocommit(handle) == 0
    }

    /// The first complete statement of `script` (up to the first `;` where `sqlite3_complete` agrees), trimmed;
    /// the whole remaining script when there is none. For error messages. https://sqlite.org/c3ref/complete.html
    static func firstStatement(in script: UnsafeBufferPointer<CChar>) -> String {
        var candidate: [CChar] = []
        for character in script {
            candidate.append(character)
            if character == CChar(UInt8(ascii: ";")) && sqlite3_complete(candidate + [0]) != 0 {
                break
            }
        }
        let text = String(decoding: candidate.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// The cached statement for `sql` (prepared on a miss; a fresh uncached one if the cached one is being
    /// stepped by an outer caller), bound to `arguments`, and reset after `body`.
    private func withStatement<T>(_ sql: String, _ arguments: [SQLValue], _ body: (Statement) throws -> T) throws -> T {
        let statement: Statement
        if let cached = cache[sql] {
            statement = cached.isBusy ? try prepare(sql) : cached
        } else {
            statement = try prepare(sql)
            if cache.count >= Connection.cacheLimit {
                cache = cache.filter { $0.value.isBusy }
            }
            cache[sql] = statement
        }
        statement.isBusy = true
        defer {
            statement.reset()
            statement.isBusy = false
        }
        try statement.bind(arguments, connection: handle)
        return try body(statement)
    }

    /// Prepares exactly one statement. https://sqlite.org/c3ref/prepare.html
    /// - Throws: `DatabaseError` on a syntax error, on empty SQL, or on SQL with a second statement.
    private func prepare(_ sql: String) throws -> Statement {
        let utf8 = Array(sql.utf8)
        let (raw, hasMore): (OpaquePointer?, Bool) = try utf8.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return (nil, false) }
            return try base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { start in
                var raw: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v3(
                    handle, start, Int32(clamping: buffer.count), UInt32(SQLITE_PREPARE_PERSISTENT), &raw, &tail)
                guard rc == SQLITE_OK else { throw error(rc, sql: sql) }
                guard let raw, let tail, tail < start + buffer.count else { return (raw, false) }
                var next: OpaquePointer?
                let nextRC = sqlite3_prepare_v2(handle, tail, Int32(clamping: start + buffer.count - tail), &next, nil)
                defer { sqlite3_finalize(next) }
                return (raw, next != nil || nextRC != SQLITE_OK)
            }
        }
        guard let raw else { throw DatabaseError.misuse("no SQL statement to run", sql: sql) }
        let statement = Statement(handle: raw, sql: sql)
        if hasMore {
            throw DatabaseError.misuse("more than one statement given; use executeScript", sql: sql)
        }
        preparedStatementCount += 1
        return statement
    }

    /// Steps `statement` once: true for a row, false when done. https://sqlite.org/c3ref/step.html
    /// - Throws: `DatabaseError` with the extended result code.
    private func step(_ statement: Statement) throws -> Bool {
        switch sqlite3_step(statement.handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw error(rc, sql: statement.sql)
        }
    }

    /// The error SQLite reports for the last call on this connection.
    func error(_ rc: Int32, sql: String?) -> DatabaseError {
        DatabaseError(code: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

/// A connection is used by one thread at a time; `Database` enforces that by handing it out only inside closures.
@available(*, unavailable)
extension Connection: Sendable {}
