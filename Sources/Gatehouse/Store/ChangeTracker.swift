import Storage

/// A write transaction's connection as the store lends it: every statement goes to the engine's connection, and the
/// followed tables it writes are noted, so that once the transaction ends the store moves their revisions on and the
/// caches that follow them forget what they hold. No service invalidates a cache by hand.
final class ChangeTracker: SQLConnection {
    private let connection: any SQLConnection
    /// The followed tables written so far.
    private(set) var written: CachedTables = []

    init(_ connection: any SQLConnection) {
        self.connection = connection
    }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        written.formUnion(CachedTables.written(by: sql))
        return try connection.execute(sql, arguments)
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [Row] {
        written.formUnion(CachedTables.written(by: sql))  // DELETE … RETURNING, UPDATE … RETURNING
        return try connection.query(sql, arguments)
    }

    func queryOne(_ sql: String, _ arguments: [SQLValue]) throws -> Row? {
        written.formUnion(CachedTables.written(by: sql))
        return try connection.queryOne(sql, arguments)
    }

    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ body: (Row) throws -> Void) throws {
        written.formUnion(CachedTables.written(by: sql))
        try connection.forEachRow(sql, arguments, body)
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try connection.savepoint(body)
    }
}
