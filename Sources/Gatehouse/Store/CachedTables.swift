/// The tables whose changes the store's caches follow, as a set. A table that is part of another (an environment's
/// apps, digests, app ids and credentials are parts of the environment) counts as that one.
struct CachedTables: OptionSet, Sendable, Hashable {
    let rawValue: UInt16

    static let environments = CachedTables(rawValue: 1 << 0)
    static let apiKeys = CachedTables(rawValue: 1 << 1)
    static let admins = CachedTables(rawValue: 1 << 2)
    static let sessions = CachedTables(rawValue: 1 << 3)
    static let managementTokens = CachedTables(rawValue: 1 << 4)
    static let trafficRollups = CachedTables(rawValue: 1 << 5)
    static let receiptKeys = CachedTables(rawValue: 1 << 6)

    /// Each table, with its name as the store's SQL writes it.
    static let byName: [String: CachedTables] = [
        "environments": .environments, "android_apps": .environments, "android_app_digests": .environments,
        "apple_app_ids": .environments, "play_integrity_credentials": .environments,
        "api_keys": .apiKeys, "admins": .admins, "sessions": .sessions, "management_tokens": .managementTokens,
        "verdict_rollups": .trafficRollups, "verdict_observed_rollups": .trafficRollups, "receipt_keys": .receiptKeys,
    ]

    /// The followed table a statement writes: the table after `INSERT INTO`, `UPDATE` or `DELETE FROM` (the store's
    /// tables write no other shape); empty for a statement that writes none of them, or none at all.
    static func written(by sql: String) -> CachedTables {
        var words = sql.utf8.split(maxSplits: 3, whereSeparator: { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }).makeIterator()
        guard let verb = words.next() else { return [] }
        let table: Substring.UTF8View.SubSequence?
        switch String(decoding: verb, as: UTF8.self).uppercased() {
        case "UPDATE":
            table = words.next()
        case "INSERT", "DELETE":
            _ = words.next()  // INTO, FROM
            table = words.next()
        default:
            return []
        }
        guard let table else { return [] }
        // The name ends where a column list or a space starts.
        let name = String(decoding: table.prefix { $0 != UInt8(ascii: "(") }, as: UTF8.self).lowercased()
        return byName[name] ?? []
    }
}
