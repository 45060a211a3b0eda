/// The store's tables: one type per table (`APIKeysTable`, `SpentNoncesTable`…), each holding the one portable SQL
/// text of every operation on it (`?` placeholders, conditional `UPDATE`, `INSERT … ON CONFLICT`, `DELETE … RETURNING`,
/// columns named) and reading its rows strictly. Services call these functions inside the store's transactions; no
/// SQL lives anywhere else in the domain. `Tables` holds what they share.
enum Tables {
    /// How long past its expiry single-use state (spent receipts, nonces, Play Integrity tokens) is kept before a
    /// purge deletes it, in seconds. Each server judges expiry on its own clock: a server whose clock runs ahead
    /// must not delete what a server behind it still judges fresh (and would then accept a second time).
    static let clockSkewMargin: Int64 = 120
}
