import Attestation
import Storage

/// The refresher's reads and writes of `attested_keys` (the receipt columns) and `app_attest_risk_metrics`.
///
/// Portable SQL: a key is claimed for a try with `UPDATE … SET refresh_claimed_until = ? WHERE` nobody holds it and
/// its schedule is still the one read, so of several servers (or a manual pass and the background) one calls Apple
/// for it, and a pass skips a key another has in flight or tried since it read the key. Every outcome moves the
/// schedule and releases the claim.
enum AppleReceiptRefreshTable {
    /// A key the refresher may trade a receipt for.
    struct Candidate: Sendable {
        var keyID: [UInt8]
        var environmentID: String
        var appID: String
        var publicKey: [UInt8]
        var attestationEnvironment: AttestationEnvironment
        var receipt: [UInt8]
        var notBefore: Int64?
        var refreshAfter: Int64?
        var failures: Int
        /// The claim version read with it (``claim(_:_:now:until:)``).
        var version: Int64
    }

    private static let columns = "key_id, environment_id, app_id, public_key, attestation_environment, receipt, receipt_not_before, refresh_after, refresh_failures, refresh_version"

    /// Active keys (an assertion verified since `activeSince`) of environments holding a DeviceCheck key Apple has not
    /// refused, whose receipt has not expired at `now`: of `environmentID` whatever their schedule (a pass an admin
    /// asked for; Apple answers 304 before a receipt's not-before), or of every environment when due
    /// (`refresh_after` and the not-before passed), soonest first.
    static func candidates(_ db: any SQLConnection, environmentID: String?, now: Int64, activeSince: Int64, limit: Int) throws -> [Candidate] {
        var sql = """
            SELECT \(columns) FROM attested_keys
            WHERE receipt IS NOT NULL AND last_used_at >= ? AND (receipt_expires_at IS NULL OR receipt_expires_at > ?)
            AND (refresh_claimed_until IS NULL OR refresh_claimed_until <= ?)
            AND environment_id IN (SELECT environment_id FROM device_check_keys)
            AND environment_id NOT IN (SELECT environment_id FROM app_attest_refresh_state WHERE refused_at IS NOT NULL)
            """
        var arguments: [SQLValue] = [.integer(activeSince), .integer(now), .integer(now)]
        if let environmentID {
            sql += " AND environment_id = ?"
            arguments.append(.text(environmentID))
        } else {
            // The schedule is never before the receipt's not-before (``AppleReceiptSchedule``); said again for a receipt
            // whose not-before came later than its schedule.
            sql += " AND refresh_after <= ? AND (receipt_not_before IS NULL OR receipt_not_before <= ?)"
            arguments += [.integer(now), .integer(now)]
        }
        sql += " ORDER BY refresh_after, key_id LIMIT ?"
        arguments.append(.integer(Int64(limit)))
        return try db.query(sql, arguments).map { row in
            Candidate(keyID: try row.blob("key_id"), environmentID: try row.text("environment_id"), appID: try row.text("app_id"),
                      publicKey: try row.blob("public_key"), attestationEnvironment: try AttestedKeysTable.environment(row),
                      receipt: try row.blob("receipt"), notBefore: try row.optionalInteger("receipt_not_before"),
                      refreshAfter: try row.optionalInteger("refresh_after"), failures: try row.int("refresh_failures"),
                      version: try row.integer("refresh_version"))
        }
    }

    /// Claims `candidate` at `now` until `until`: true when no one holds it and no pass, on any server, claimed it
    /// since it was read (every claim moves the key's version on, so a claim made, settled and released meanwhile is
    /// seen even when it left the schedule as it was).
    static func claim(_ db: any SQLConnection, _ candidate: Candidate, now: Int64, until: Int64) throws -> Bool {
        try db.execute(
            """
            UPDATE attested_keys SET refresh_claimed_until = ?, refresh_version = refresh_version + 1
            WHERE key_id = ? AND refresh_version = ? AND (refresh_claimed_until IS NULL OR refresh_claimed_until <= ?)
            """,
            [.integer(until), .blob(candidate.keyID), .integer(candidate.version), .integer(now)]) == 1
    }

    /// Stores a new receipt with its risk metric at `now` (kept in the metric history too) and the next refresh.
    static func store(_ db: any SQLConnection, keyID: [UInt8], environmentID: String, receipt: [UInt8], read: AppAttestReceipt,
                      now: Int64, next: Int64) throws {
        db.wroteAttestedKeys(of: environmentID)
        try db.execute(
            """
            UPDATE attested_keys SET receipt = ?, receipt_not_before = ?, receipt_expires_at = ?, risk_metric = ?, risk_metric_at = ?,
            refresh_after = ?, refresh_failures = 0, refresh_claimed_until = NULL WHERE key_id = ?
            """,
            [.blob(receipt), SQLValue(read.notBefore), SQLValue(read.expirationTime), SQLValue(read.riskMetric.map(Int64.init)),
             SQLValue(read.riskMetric == nil ? nil : now), .integer(next), .blob(keyID)])
        if let metric = read.riskMetric {
            try db.execute(
                "INSERT INTO app_attest_risk_metrics (environment_id, key_id, observed_at, risk_metric) VALUES (?, ?, ?, ?) ON CONFLICT (environment_id, key_id, observed_at) DO NOTHING",
                [.text(environmentID), .blob(keyID), .integer(now), .integer(Int64(metric))])
        }
    }

    /// Sets the next refresh and the count of consecutive failures, and releases the claim.
    static func reschedule(_ db: any SQLConnection, keyID: [UInt8], next: Int64, failures: Int) throws {
        try db.execute("UPDATE attested_keys SET refresh_after = ?, refresh_failures = ?, refresh_claimed_until = NULL WHERE key_id = ?",
                       [.integer(next), .integer(Int64(failures)), .blob(keyID)])
    }

    /// Deletes metrics older than `before`; returns how many.
    static func purgeMetrics(_ db: any SQLConnection, before: Int64, limit: Int) throws -> Int {
        try db.execute(
            "DELETE FROM app_attest_risk_metrics WHERE (environment_id, key_id, observed_at) IN (SELECT environment_id, key_id, observed_at FROM app_attest_risk_metrics WHERE observed_at < ? LIMIT ?)",
            [.integer(before), .integer(Int64(limit))])
    }

    /// Each key's latest metric observed in [`from`, `to`) for `environmentID`.
    static func latestMetrics(_ db: any SQLConnection, environmentID: String, from: Int64, to: Int64) throws -> [Int] {
        try db.query(
            """
            SELECT m.risk_metric AS metric FROM app_attest_risk_metrics m
            WHERE m.environment_id = ? AND m.observed_at >= ? AND m.observed_at < ?
            AND m.observed_at = (SELECT MAX(n.observed_at) FROM app_attest_risk_metrics n
                                 WHERE n.environment_id = m.environment_id AND n.key_id = m.key_id AND n.observed_at >= ? AND n.observed_at < ?)
            """,
            [.text(environmentID), .integer(from), .integer(to), .integer(from), .integer(to)]).map { try $0.int("metric") }
    }
}
