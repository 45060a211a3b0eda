import SQLite

/// The domain's way into the database: the same transactions as `Database`, with the store's errors in the domain's
/// words, so the layers above never see SQLite's.
extension Store {
    /// Runs `body` in the write transaction (one writer at a time). A constraint violation becomes
    /// `DomainError.conflict`, a busy database `DomainError.unavailable`; the body's own errors pass unchanged.
    func write<T>(_ body: (Connection) throws -> T) throws -> T {
        do {
            return try database.write(body)
        } catch let error as DatabaseError {
            throw Self.domainError(error)
        }
    }

    /// Runs `body` on a reader connection; errors as `write`.
    func read<T>(_ body: (Connection) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as DatabaseError {
            throw Self.domainError(error)
        }
    }

    /// What a database error means to the domain: a conflict with stored data, a moment's unavailability, or (for
    /// anything else) itself, which the web layer answers as a 500 without its text.
    static func domainError(_ error: DatabaseError) -> any Error {
        switch error.kind {
        case .uniqueConstraint, .primaryKeyConstraint, .foreignKeyConstraint, .checkConstraint:
            DomainError.conflict("the change conflicts with stored data (a duplicate or a reference to something missing)")
        case .busy:
            DomainError.unavailable("the database is busy; retry shortly", retryAfter: 1)
        default:
            error
        }
    }
}
