import Storage

/// A change that must be committed before, and together with, whatever an operation commits next: an assessment's
/// nonce, spent in the same group-commit transaction as the Play Integrity token it carried. The change says whether
/// the operation may go on; when it says no, the operation's own change is not run (the transaction holds neither)
/// and ``Refused`` is thrown. It is committed once: later commits run alone.
struct FirstChange {
    /// The change, until it is committed.
    private var change: (@Sendable (any SQLConnection) throws -> Bool)?

    /// Thrown when the first change refused: nothing of the operation was committed.
    struct Refused: Error {}

    /// `change` to commit first (nil: nothing).
    init(_ change: (@Sendable (any SQLConnection) throws -> Bool)?) {
        self.change = change
    }

    /// Commits `body` through `store`'s group commit, after the first change when it is still pending.
    /// - Throws: ``Refused`` when the first change refused; what `body` or the commit throws.
    mutating func commit<T: Sendable>(_ store: Store, _ body: @escaping @Sendable (any SQLConnection) throws -> T) throws -> T {
        guard let first = change else { return try store.commit(body) }
        change = nil
        let result = try store.commit { db -> T? in
            guard try first(db) else { return nil }
            return try body(db)
        }
        guard let result else { throw Refused() }
        return result
    }

    /// Commits the first change alone when it is still pending.
    /// - Throws: ``Refused`` when it refused; what the commit throws.
    mutating func commitAlone(_ store: Store) throws {
        guard change != nil else { return }
        try commit(store) { _ in () }
    }
}
