import CSQLite

/// Transactions and savepoints. See https://sqlite.org/lang_transaction.html and https://sqlite.org/lang_savepoint.html
extension Connection {
    /// Runs `body` inside a savepoint: released when `body` returns, rolled back to (and released) when it
    /// throws, so only `body`'s changes are undone and an enclosing transaction carries on. Savepoints nest.
    /// Outside a transaction the outermost savepoint acts as `BEGIN DEFERRED` … `COMMIT`.
    /// - Throws: what `body` throws (after the rollback), or `DatabaseError`.
    @discardableResult
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "gatehouse_savepoint_\(savepointDepth)"
        try execute("SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
        } catch {
            // If SQLite already rolled the whole transaction back (https://sqlite.org/lang_transaction.html
            // "Response To Errors Within A Transaction") the savepoint is gone; the original error matters more.
            if isInTransaction {
                _ = try? execute("ROLLBACK TO \(name)")
                _ = try? execute("RELEASE \(name)")
            }
            throw error
        }
        try execute("RELEASE \(name)")
        return result
    }

    /// Runs `body` between `begin` (e.g. `BEGIN IMMEDIATE`) and `COMMIT`; rolls back when `body` or the
    /// commit throws.
    /// - Throws: what `body` throws, or `DatabaseError` from BEGIN or COMMIT.
    func transaction<T>(_ begin: String, _ body: (Connection) throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body(self)
            try execute("COMMIT")
            return result
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Rolls back the open transaction, if SQLite has not already. A failing ROLLBACK leaves nothing better
    /// to do than report the error that caused it, so its own error is dropped.
    func rollbackIfNeeded() {
        if isInTransaction {
            _ = try? execute("ROLLBACK")
        }
    }
}
