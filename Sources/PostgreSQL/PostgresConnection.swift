import CLibPQ
import Glibc
import Storage

/// One libpq connection (https://www.postgresql.org/docs/15/libpq.html), used by one thread at a time (libpq's rule;
/// the pool lends it to one caller at a time). Statements take the store's `?` placeholders, rewritten once per text
/// to `$n` and prepared once per connection; values are always sent as parameters, never spliced into SQL.
public final class PostgresConnection: SQLConnection {
    /// The `PGconn *`, finished in `deinit`.
    private let handle: OpaquePointer
    /// Statements prepared on this connection, by SQL text and parameter types, with their server-side name.
    private var prepared: [PreparedKey: String] = [:]
    private var savepoints = 0
    /// Whether statements are prepared once and run by name (the default), or sent whole each time as unnamed
    /// statements: behind a pooler in transaction mode (pgBouncer before 1.21) a named statement prepared on one
    /// server connection is missing on the next (SQLSTATE 26000).
    private let preparesStatements: Bool
    /// The numbered text of each SQL text run unprepared.
    private var numbered: [String: String] = [:]

    /// Connects with `url` (a `postgres://` URL or a `key=value` string, handed to libpq whole) after `defaults`
    /// (keywords the URL may override, e.g. `connect_timeout`).
    /// - Throws: ``PostgresError`` (no SQLSTATE) when the connection cannot be made; its message is libpq's, which
    ///   names the host but never the password.
    public init(url: String, defaults: [(String, String)] = [], preparedStatements: Bool = true) throws {
        preparesStatements = preparedStatements
        let keywords = defaults.map(\.0) + ["dbname"]
        let values = defaults.map(\.1) + [url]
        let connection = Self.withCStrings(keywords) { keys in
            Self.withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
        }
        guard let connection else { throw PostgresError(sqlState: nil, "out of memory opening a connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.text(PQerrorMessage(connection)).trimmingTrailingNewlines
            PQfinish(connection)
            throw PostgresError(sqlState: nil, message)
        }
        // Notices (a `RAISE NOTICE` in a migration, "there is no transaction in progress") are dropped rather than
        // printed on standard error; errors still come back as results.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection was lost (the pool replaces such a connection instead of lending it again).
    public var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Whether the connection is usable and outside any transaction: the only state in which the pool lends it.
    public var isIdle: Bool { !isBroken && PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Commits the open transaction. PostgreSQL answers `COMMIT` of a transaction that an error aborted with the tag
    /// `ROLLBACK` and no error: any tag but `COMMIT` is a failure here, so nothing is acknowledged that was not kept.
    /// - Throws: ``PostgresError`` (SQLSTATE 40000, transaction rollback, for a rolled-back commit).
    public func commit() throws {
        guard let result = PQexec(handle, "COMMIT") else { throw lost() }
        defer { PQclear(result) }
        try check(result)
        let tag = Self.text(PQcmdStatus(result).map { UnsafePointer($0) })
        guard tag == "COMMIT" else {
            throw PostgresError(sqlState: "40000", "the transaction was rolled back instead of committed (the server answered \(tag.isEmpty ? "nothing" : tag))")
        }
    }

    // MARK: SQLConnection

    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try run(sql, arguments) { result in
            let changed = Self.text(PQcmdTuples(result).map { UnsafePointer($0) })
            return Int(changed) ?? 0
        }
    }

    public func query(_ sql: String, _ arguments: [SQLValue]) throws -> [Row] {
        try run(sql, arguments) { result in
            let columns = Self.columns(result)
            return (0..<PQntuples(result)).map { Self.row(result, $0, columns) }
        }
    }

    public func queryOne(_ sql: String, _ arguments: [SQLValue]) throws -> Row? {
        try run(sql, arguments) { result in
            PQntuples(result) > 0 ? Self.row(result, 0, Self.columns(result)) : nil
        }
    }

    public func forEachRow(_ sql: String, _ arguments: [SQLValue], _ body: (Row) throws -> Void) throws {
        for row in try query(sql, arguments) { try body(row) }
    }

    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepoints += 1
        defer { savepoints -= 1 }
        let name = "gatehouse_\(savepoints)"
        try script("SAVEPOINT \(name)")
        do {
            let value = try body()
            try script("RELEASE SAVEPOINT \(name)")
            return value
        } catch {
            // An error inside a transaction aborts it until the savepoint is rolled back to.
            try? script("ROLLBACK TO SAVEPOINT \(name)")
            try? script("RELEASE SAVEPOINT \(name)")
            throw error
        }
    }

    // MARK: Running statements

    /// Runs `sql` (one or more statements, no parameters) through the simple query protocol: transaction control and
    /// migration files.
    /// - Throws: ``PostgresError``.
    public func script(_ sql: String) throws {
        guard let result = PQexec(handle, sql) else { throw lost() }
        defer { PQclear(result) }
        try check(result)
    }

    /// Prepares `sql` (once per connection and parameter types), runs it with `arguments` and hands the result to
    /// `read` before clearing it.
    private func run<T>(_ sql: String, _ arguments: [SQLValue], _ read: (OpaquePointer) throws -> T) throws -> T {
        // libpq sends a text value as a C string: a U+0000 would cut it short, silently (SQLite keeps it whole).
        for case .text(let text) in arguments where text.utf8.contains(0) {
            throw StorageError(.invalidValue, "a text value holds U+0000 (NUL), which PostgreSQL cannot store")
        }
        let parameters = Parameters(arguments)
        let result: OpaquePointer?
        if preparesStatements {
            let key = PreparedKey(sql: sql, types: parameters.types)
            let name = try prepared[key] ?? prepare(sql, key)
            result = parameters.withPointers { values, lengths, formats in
                PQexecPrepared(handle, name, Int32(arguments.count), values, lengths, formats, 0)
            }
        } else {
            let text = try numbered[sql] ?? Placeholders.numbered(sql)
            numbered[sql] = text
            result = parameters.types.withUnsafeBufferPointer { types in
                parameters.withPointers { values, lengths, formats in
                    PQexecParams(handle, text, Int32(arguments.count), types.baseAddress, values, lengths, formats, 0)
                }
            }
        }
        guard let result else { throw lost() }
        defer { PQclear(result) }
        try check(result)
        return try read(result)
    }

    private func prepare(_ sql: String, _ key: PreparedKey) throws -> String {
        let name = "s\(prepared.count + 1)"
        let text = try Placeholders.numbered(sql)
        guard let result = key.types.withUnsafeBufferPointer({ types in
            PQprepare(handle, name, text, Int32(types.count), types.baseAddress)
        }) else { throw lost() }
        defer { PQclear(result) }
        try check(result)
        prepared[key] = name
        return name
    }

    private func check(_ result: OpaquePointer) throws {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { Self.text($0) }
            var message = Self.text(PQresultErrorField(result, Int32(UInt8(ascii: "M"))))
            if message.isEmpty { message = Self.text(PQresultErrorMessage(result)) }
            if message.isEmpty { message = Self.text(PQerrorMessage(handle)) }
            throw PostgresError(sqlState: state, message.trimmingTrailingNewlines)
        }
    }

    private func lost() -> PostgresError {
        PostgresError(sqlState: nil, Self.text(PQerrorMessage(handle)).trimmingTrailingNewlines)
    }

    // MARK: Notifications

    /// Waits up to `milliseconds` for a notification on a channel this connection listens on
    /// (https://www.postgresql.org/docs/15/libpq-notify.html); returns whether one (or more) came, consuming them.
    /// Other input (a notice, the server's farewell before it closes) does not end the wait early, so a connection
    /// the server ended is reported as lost in the same call rather than on the next.
    /// - Throws: ``PostgresError`` when the connection is lost.
    public func awaitNotification(milliseconds: Int) throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        while true {
            guard PQconsumeInput(handle) == 1, !isBroken else { throw lost() }
            if drainNotifications() { return true }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let socket = PQsocket(handle)
            guard socket >= 0 else { throw lost() }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let wait = Int32(clamping: Int((left / .milliseconds(1)).rounded(.up)))
            if poll(&descriptor, 1, wait) < 0, errno != EINTR { throw lost() }
        }
    }

    private func drainNotifications() -> Bool {
        var any = false
        while let notification = PQnotifies(handle) {
            PQfreemem(notification)
            any = true
        }
        return any
    }

    // MARK: Reading results

    private static func columns(_ result: OpaquePointer) -> [(name: String, type: Oid)] {
        (0..<PQnfields(result)).map { (text(PQfname(result, $0)), PQftype(result, $0)) }
    }

    private static func row(_ result: OpaquePointer, _ index: Int32, _ columns: [(name: String, type: Oid)]) -> Row {
        var values: [SQLValue] = []
        values.reserveCapacity(columns.count)
        for (column, (_, type)) in columns.enumerated() {
            let field = Int32(column)
            if PQgetisnull(result, index, field) == 1 {
                values.append(.null)
                continue
            }
            let length = Int(PQgetlength(result, index, field))
            let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, index, field), count: length)
            values.append(TextValue.decode(bytes, type: type))
        }
        return Row(columns: columns.map(\.name), values: values)
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }

    /// Calls `body` with the C strings of `strings` followed by a NULL pointer (libpq's keyword and value arrays);
    /// they live for the call only.
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        var bytes: [CChar] = []
        var offsets: [Int] = []
        for string in strings {
            offsets.append(bytes.count)
            bytes += string.utf8CString
        }
        return bytes.withUnsafeBufferPointer { buffer in
            var pointers: [UnsafePointer<CChar>?] = offsets.map { offset in buffer.baseAddress.map { $0 + offset } }
            pointers.append(nil)
            return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
        }
    }
}

/// A prepared statement's identity on one connection: its text and the types of its parameters (a NULL argument
/// leaves its type to the server, so a statement called with and without NULLs is prepared once for each).
struct PreparedKey: Hashable {
    let sql: String
    let types: [Oid]
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = Substring(self)
        while text.last == "\n" || text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
