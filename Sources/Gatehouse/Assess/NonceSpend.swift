import Storage

/// An assessment's nonce spend, which must be committed first and together with whatever its proof commits next (the
/// assertion's counter, the Play Integrity token), in one group-commit transaction. The spend says whether the
/// assessment may go on (the nonce was not spent before); when it says no, the proof's change is not run (the
/// transaction holds neither) and ``Refused`` is thrown: a replay changes nothing. It is committed once: later
/// commits run alone. A request without a signed, fresh nonce spends nothing (`NonceSpend(nil)`).
struct NonceSpend {
    /// The spend, until it is committed.
    private var change: (@Sendable (any SQLConnection) throws -> Bool)?

    /// Thrown when the nonce was spent before: nothing of the assessment was committed.
    struct Refused: Error {}

    /// `change` (the nonce's spend) to commit first (nil: nothing).
    init(_ change: (@Sendable (any SQLConnection) throws -> Bool)?) {
        self.change = change
    }

    /// Commits `body` through `store`'s group commit, after the spend when it is still pending.
    /// - Throws: ``Refused`` when the nonce was spent before; what `body` or the commit throws.
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

    /// Commits the spend alone when it is still pending.
    /// - Throws: ``Refused`` when the nonce was spent before; what the commit throws.
    mutating func commitAlone(_ store: Store) throws {
        guard change != nil else { return }
        try commit(store) { _ in () }
    }
}
