import Storage

/// The `device_check_keys` table: each environment's DeviceCheck key, sealed, with its identifiers; and
/// `app_attest_refresh_state`, the refresher's state apart from the environment (its last pass, Apple's refusal).
enum DeviceCheckKeysTable {
    /// Stores `key`'s identifiers and sealed private key for `environmentID` (replacing one), and forgets Apple's
    /// refusal of the one before: refreshes resume with the new key.
    /// - Throws: `StorageError`.
    static func replace(_ db: any SQLConnection, environmentID: String, key: DeviceCheckKeyID, sealed: [UInt8]) throws {
        db.wrote(.environments)
        try db.execute(
            """
            INSERT INTO device_check_keys (environment_id, key_id, team_id, private_sealed) VALUES (?, ?, ?, ?)
            ON CONFLICT (environment_id) DO UPDATE SET key_id = excluded.key_id, team_id = excluded.team_id, private_sealed = excluded.private_sealed
            """,
            [.text(environmentID), .text(key.keyID), .text(key.teamID), .blob(sealed)])
        try db.execute("UPDATE app_attest_refresh_state SET refused_at = NULL, refused_status = NULL WHERE environment_id = ?", [.text(environmentID)])
    }

    /// Removes `environmentID`'s key and its refusal.
    /// - Throws: `StorageError`.
    static func delete(_ db: any SQLConnection, environmentID: String) throws {
        db.wrote(.environments)
        try db.execute("DELETE FROM device_check_keys WHERE environment_id = ?", [.text(environmentID)])
        try db.execute("UPDATE app_attest_refresh_state SET refused_at = NULL, refused_status = NULL WHERE environment_id = ?", [.text(environmentID)])
    }

    /// The identifiers of the keys of the environments matching `condition` (on `environment_id`), by environment.
    /// - Throws: `StorageError`.
    static func identifiers(_ db: any SQLConnection, where condition: String, _ arguments: [SQLValue]) throws -> [String: DeviceCheckKeyID] {
        var keys: [String: DeviceCheckKeyID] = [:]
        try db.forEachRow("SELECT environment_id, key_id, team_id FROM device_check_keys WHERE \(condition)", arguments) { row in
            keys[try row.text("environment_id")] = DeviceCheckKeyID(keyID: try row.text("key_id"), teamID: try row.text("team_id"))
        }
        return keys
    }

    /// `environmentID`'s key identifiers and sealed private key, or nil.
    /// - Throws: `StorageError`.
    static func sealed(_ db: any SQLConnection, environmentID: String) throws -> (id: DeviceCheckKeyID, sealed: [UInt8])? {
        guard let row = try db.queryOne("SELECT key_id, team_id, private_sealed FROM device_check_keys WHERE environment_id = ?", [.text(environmentID)]) else {
            return nil
        }
        return (DeviceCheckKeyID(keyID: try row.text("key_id"), teamID: try row.text("team_id")), try row.blob("private_sealed"))
    }

    /// The refresher's state of `environmentID`.
    /// - Throws: `StorageError`.
    static func refreshState(_ db: any SQLConnection, environmentID: String) throws -> AppleReceiptRefreshState {
        guard let row = try db.queryOne("SELECT last_pass_at, refused_at, refused_status FROM app_attest_refresh_state WHERE environment_id = ?",
                                        [.text(environmentID)]) else { return AppleReceiptRefreshState() }
        return AppleReceiptRefreshState(lastPassAt: try row.optionalInteger("last_pass_at"), refusedAt: try row.optionalInteger("refused_at"),
                                   refusedStatus: try row.optionalInteger("refused_status").map(Int.init))
    }

    /// Records a pass of `environmentID` at `now`, and Apple's refusal of its key when `refusedStatus` is set.
    /// - Throws: `StorageError`.
    static func recordPass(_ db: any SQLConnection, environmentID: String, at now: Int64, refusedStatus: Int?) throws {
        try db.execute("INSERT INTO app_attest_refresh_state (environment_id) VALUES (?) ON CONFLICT (environment_id) DO NOTHING", [.text(environmentID)])
        if let refusedStatus {
            try db.execute("UPDATE app_attest_refresh_state SET last_pass_at = ?, refused_at = ?, refused_status = ? WHERE environment_id = ?",
                           [.integer(now), .integer(now), .integer(Int64(refusedStatus)), .text(environmentID)])
        } else {
            try db.execute("UPDATE app_attest_refresh_state SET last_pass_at = ? WHERE environment_id = ?", [.integer(now), .text(environmentID)])
        }
    }
}
