import Crypto
import Storage

/// The `key_attestation_keys` table: Android keys that passed key attestation, one row per key.
///
/// Portable SQL: a key registered again replaces its row with `INSERT … ON CONFLICT (key_id) DO UPDATE … WHERE` the
/// row is the same environment's, so a key stays in the environment that first registered it.
enum KeyAttestationKeysTable {
    /// The key `keyID` of `environmentID`, or nil (a key of another environment is not found either).
    /// - Throws: `StorageError`.
    static func load(_ db: any SQLConnection, keyID: [UInt8], environmentID: String) throws -> KeyAttestedKey? {
        guard let row = try db.queryOne(
            """
            SELECT key_id, environment_id, public_key, package_name, certificate_digests, serials, security_level, boot_state, boot_key,
                   os_patch_level, created_at FROM key_attestation_keys WHERE key_id = ?
            """, [.blob(keyID)]),
              try row.text("environment_id") == environmentID
        else { return nil }
        return KeyAttestedKey(keyID: try row.blob("key_id"), environmentID: environmentID, publicKey: try row.blob("public_key"),
                              packageName: try row.text("package_name"),
                              certificateDigests: try list(row, "certificate_digests").compactMap { Hex.decode($0) },
                              serials: try list(row, "serials"), securityLevel: try row.text("security_level"),
                              bootState: try row.optionalText("boot_state"), bootKey: try row.optionalText("boot_key"),
                              osPatchLevel: try row.optionalText("os_patch_level"), createdAt: try row.integer("created_at"))
    }

    /// The environment that stored `keyID`, or nil.
    /// - Throws: `StorageError`.
    static func environment(_ db: any SQLConnection, keyID: [UInt8]) throws -> String? {
        try db.queryOne("SELECT environment_id FROM key_attestation_keys WHERE key_id = ?", [.blob(keyID)])?.text("environment_id")
    }

    /// Stores `key`, or replaces the row of a key the same environment registered before: false when another
    /// environment holds the key.
    /// - Throws: `StorageError`.
    static func store(_ db: any SQLConnection, _ key: KeyAttestedKey) throws -> Bool {
        try db.execute(
            """
            INSERT INTO key_attestation_keys (key_id, environment_id, public_key, package_name, certificate_digests, serials, security_level,
                                              boot_state, boot_key, os_patch_level, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (key_id) DO UPDATE SET package_name = excluded.package_name, certificate_digests = excluded.certificate_digests,
                serials = excluded.serials, security_level = excluded.security_level, boot_state = excluded.boot_state,
                boot_key = excluded.boot_key, os_patch_level = excluded.os_patch_level
            WHERE key_attestation_keys.environment_id = excluded.environment_id
            """,
            [.blob(key.keyID), .text(key.environmentID), .blob(key.publicKey), .text(key.packageName),
             .text(key.certificateDigests.map { Hex.encode($0) }.joined(separator: ",")), .text(key.serials.joined(separator: ",")),
             .text(key.securityLevel), SQLValue(key.bootState), SQLValue(key.bootKey), SQLValue(key.osPatchLevel), .integer(key.createdAt)]) == 1
    }

    /// Calls `body` with each package of `environmentID`'s keys and how many keys it has.
    /// - Throws: `StorageError`.
    static func countsPerPackage(_ db: any SQLConnection, environmentID: String, _ body: (_ packageName: String, _ keys: Int) throws -> Void) throws {
        try db.forEachRow("SELECT package_name, COUNT(*) AS n FROM key_attestation_keys WHERE environment_id = ? GROUP BY package_name",
                          [.text(environmentID)]) { row in
            try body(try row.text("package_name"), try row.int("n"))
        }
    }

    private static func list(_ row: Row, _ column: String) throws -> [String] {
        try row.text(column).split(separator: ",").map(String.init)
    }
}
