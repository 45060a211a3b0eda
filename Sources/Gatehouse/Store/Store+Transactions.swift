import Storage

/// The domain's way into the database: transactions whose failures are in the domain's words, mapped here once for
/// every engine and both write paths (a plain write and a group commit), so the layers above never see an engine's
/// errors.
extension Store {
    /// Runs `body` in a write transaction (one writer at a time). A constraint violation becomes
    /// `DomainError.conflict`, a busy or unreachable database `DomainError.unavailable`; the body's own errors pass
    /// unchanged.
    @discardableResult
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        do {
            return try database.write(body)
        } catch {
            throw domainError(error)
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
    /// transaction has committed; errors as `write`.
    @discardableResult
    func commit<T: Sendable>(_ change: @escaping @Sendable (any SQLConnection) throws -> T) throws -> T {
        do {
            return try committer.write(change)
        } catch {
            throw domainError(error)
        }
    }

    /// What an error means to the domain: a conflict with stored data, a moment's unavailability, or (for anything
    /// else, the engine's included) itself, which the web layer answers as a 500 without its text.
    func domainError(_ error: any Error) -> any Error {
        guard let failure = database.failure(of: error) else { return error }
        switch failure.kind {
        case .unique, .foreignKey, .check:
            return DomainError.conflict("the change conflicts with stored data (a duplicate or a reference to something missing)")
        case .busy:
            return DomainError.unavailable("the database is busy; retry shortly", retryAfter: 1)
        case .unavailable:
            return DomainError.unavailable("the database cannot be reached; retry shortly", retryAfter: 1)
        case .malformedRow, .other:
            return failure
        }
    }
}
