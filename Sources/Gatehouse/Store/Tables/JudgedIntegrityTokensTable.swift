import Attestation
import Storage

/// The tokens sent to Google in the last 10 minutes (`judged_integrity_tokens`), by SHA-256: a token judged in that
/// time is never sent again, so a replayed or junk token costs none of the project's daily quota (docs/device-api.md "Play
/// Integrity"). The reservation is made in a transaction before the call; the call is counted once it was sent.
///
/// Portable SQL: the reservation is one `INSERT … ON CONFLICT DO NOTHING`, so of several presentations of one token
/// exactly one calls Google; the count is an `INSERT … ON CONFLICT DO UPDATE SET count = count + 1`.
enum JudgedIntegrityTokensTable {
    /// How long a token sent to Google is remembered, seconds.
    static let remembered: Int64 = 600

    /// What an earlier presentation of a token left.
    enum Earlier: Sendable, Equatable {
        /// Google was called for it (and decoded it, or is still being asked): a replay.
        case decoded
        /// Google's answer carried no payload: this judgement, given again.
        case failed(Verdict)
    }

    /// Reserves `tokenHash` for a call to Google at `now`; nil when reserved, otherwise what the earlier
    /// presentation left.
    /// - Throws: `StorageError`.
    static func reserve(_ db: any SQLConnection, tokenHash: [UInt8], environmentID: String, now: Int64) throws -> Earlier? {
        let inserted = try db.execute(
            """
            INSERT INTO judged_integrity_tokens (token_hash, environment_id, expires_at, status, reasons) VALUES (?, ?, ?, NULL, NULL)
            ON CONFLICT (environment_id, token_hash) DO NOTHING
            """,
            [.blob(tokenHash), .text(environmentID), .integer(now + remembered)])
        guard inserted == 0 else { return nil }
        let row = try db.queryOne("SELECT status, reasons FROM judged_integrity_tokens WHERE environment_id = ? AND token_hash = ?",
                                  [.text(environmentID), .blob(tokenHash)])
        guard let row, let stored = try row.optionalText("status") else { return .decoded }
        guard let status = VerdictStatus(rawValue: stored) else {
            throw StorageError(.malformedRow, "judged_integrity_tokens.status holds an unknown verdict status")
        }
        let reasons = (try row.optionalText("reasons") ?? "").split(separator: ",").map(String.init)
        return .failed(Verdict(status: status, reasons: reasons))
    }

    /// Forgets the reservation of a token whose call was not made after all (the client address's budget was
    /// spent), so that the token may be sent later.
    /// - Throws: `StorageError`.
    static func release(_ db: any SQLConnection, tokenHash: [UInt8], environmentID: String) throws {
        try db.execute("DELETE FROM judged_integrity_tokens WHERE environment_id = ? AND token_hash = ? AND status IS NULL",
                       [.text(environmentID), .blob(tokenHash)])
    }

    /// Keeps the judgement of a token whose call to Google gave no payload, for its replays.
    /// - Throws: `StorageError`.
    static func settle(_ db: any SQLConnection, tokenHash: [UInt8], environmentID: String, verdict: Verdict) throws {
        try db.execute("UPDATE judged_integrity_tokens SET status = ?, reasons = ? WHERE environment_id = ? AND token_hash = ?",
                       [.text(verdict.status.rawValue), .text(verdict.reasons.joined(separator: ",")), .text(environmentID), .blob(tokenHash)])
    }

    /// Deletes what expired at `now` less ``Tables/clockSkewMargin``, at most `limit` per call; returns how many.
    /// - Throws: `StorageError`.
    static func purge(_ db: any SQLConnection, now: Int64, limit: Int) throws -> Int {
        try db.query(
            """
            DELETE FROM judged_integrity_tokens WHERE (environment_id, token_hash) IN
              (SELECT environment_id, token_hash FROM judged_integrity_tokens WHERE expires_at <= ? LIMIT ?) RETURNING expires_at
            """,
            [.integer(now - Tables.clockSkewMargin), .integer(Int64(limit))]).count
    }
}
