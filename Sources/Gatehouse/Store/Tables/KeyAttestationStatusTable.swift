import Storage

/// The `key_attestation_status` table: Google's attestation status list as last fetched (one row), and the claim that
/// lets one server of a cluster fetch it.
///
/// Portable SQL: a claim is a conditional `UPDATE … WHERE claimed_until = ? AND fetched_at IS NOT DISTINCT FROM ?`
/// from the values read, so of servers that read the same row exactly one claims it.
enum KeyAttestationStatusTable {
    /// The row's name.
    static let name = "status"

    /// When the list was last fetched (nil: never), until when a server holds the claim to fetch it, and how many
    /// fetches failed in a row.
    struct State: Sendable, Equatable {
        var fetchedAt: Int64?
        var claimedUntil: Int64
        var failures: Int
    }

    /// The row's state.
    /// - Throws: `StorageError` (the row is missing: the migration did not run).
    static func state(_ db: any SQLConnection) throws -> State {
        guard let row = try db.queryOne("SELECT fetched_at, claimed_until, failures FROM key_attestation_status WHERE name = ?",
                                        [.text(name)]) else {
            throw StorageError(.malformedRow, "key_attestation_status has no row")
        }
        return State(fetchedAt: try row.optionalInteger("fetched_at"), claimedUntil: try row.integer("claimed_until"),
                     failures: try row.int("failures"))
    }

    /// The list's body as fetched, or nil.
    /// - Throws: `StorageError`.
    static func body(_ db: any SQLConnection) throws -> (body: String, fetchedAt: Int64)? {
        guard let row = try db.queryOne("SELECT body, fetched_at FROM key_attestation_status WHERE name = ?", [.text(name)]),
              let body = try row.optionalText("body"), let fetchedAt = try row.optionalInteger("fetched_at") else { return nil }
        return (body, fetchedAt)
    }

    /// Claims the fetch until `until` when the row is still as `seen`: true when this server holds the claim.
    /// - Throws: `StorageError`.
    static func claim(_ db: any SQLConnection, seen: State, until: Int64) throws -> Bool {
        if let fetchedAt = seen.fetchedAt {
            return try db.execute("UPDATE key_attestation_status SET claimed_until = ? WHERE name = ? AND claimed_until = ? AND fetched_at = ?",
                                  [.integer(until), .text(name), .integer(seen.claimedUntil), .integer(fetchedAt)]) == 1
        }
        return try db.execute("UPDATE key_attestation_status SET claimed_until = ? WHERE name = ? AND claimed_until = ? AND fetched_at IS NULL",
                              [.integer(until), .text(name), .integer(seen.claimedUntil)]) == 1
    }

    /// Stores a list fetched at `now` and releases the claim.
    /// - Throws: `StorageError`.
    static func fetched(_ db: any SQLConnection, body: String, now: Int64) throws {
        try db.execute("UPDATE key_attestation_status SET body = ?, fetched_at = ?, claimed_until = 0, failures = 0, last_error = NULL WHERE name = ?",
                       [.text(body), .integer(now), .text(name)])
    }

    /// Records a failed fetch; the claim holds until `retryAt`, when any server may try again.
    /// - Throws: `StorageError`.
    static func failed(_ db: any SQLConnection, error: String, retryAt: Int64) throws {
        try db.execute("UPDATE key_attestation_status SET claimed_until = ?, failures = failures + 1, last_error = ? WHERE name = ?",
                       [.integer(retryAt), .text(error), .text(name)])
    }
}
