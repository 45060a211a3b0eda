import Crypto
import Storage

/// The `key_devices` table: which devices (`signed.device.id`, hashed) an App Attest key's verified assertions spoke
/// for, per UTC day. A key is one phone: more than ``maxDevicesPerDay`` in a day and it is rejected
/// (`oneKeyManyDevices`) for the rest of that day, its own device's requests included (seed 003, "iOS: App Attest").
enum KeyDevicesTable {
    /// The most devices a key may speak for in one UTC day.
    static let maxDevicesPerDay = 2

    /// The UTC day of `now` (unix seconds).
    static func day(_ now: Int64) -> Int64 {
        now >= 0 ? now / 86_400 : (now - 86_399) / 86_400
    }

    /// Records that `keyID` spoke for `deviceID` on the day of `now`, and answers how many distinct devices it spoke
    /// for that day (this one included).
    /// - Throws: `StorageError`.
    static func record(_ db: any SQLConnection, keyID: [UInt8], deviceID: String, now: Int64) throws -> Int {
        let day = day(now)
        try db.execute("INSERT INTO key_devices (key_id, day, device_hash) VALUES (?, ?, ?) ON CONFLICT (key_id, day, device_hash) DO NOTHING",
                       [.blob(keyID), .integer(day), .blob(SHA256.hash(Array(deviceID.utf8)))])
        let counted = try db.queryOne("SELECT COUNT(*) AS n FROM key_devices WHERE key_id = ? AND day = ?", [.blob(keyID), .integer(day)])
        return try counted?.int("n") ?? 0
    }

    /// Deletes the rows of days before the day of `now`, at most `limit` per call, and returns how many.
    /// - Throws: `StorageError`.
    static func purge(_ db: any SQLConnection, now: Int64, limit: Int) throws -> Int {
        let rows = try db.query(
            "DELETE FROM key_devices WHERE (key_id, day, device_hash) IN (SELECT key_id, day, device_hash FROM key_devices WHERE day < ? LIMIT ?) RETURNING day",
            [.integer(day(now)), .integer(Int64(limit))])
        return rows.count
    }
}
