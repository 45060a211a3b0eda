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
    static let debugTokens = CachedTables(rawValue: 1 << 7)
    /// Registered App Attest keys as a whole table, as far as caches care: deleted only with their environment
    /// (registrations and counter commits keep the cache themselves, see `AttestedKeyCache`; a refreshed receipt
    /// changes one environment's keys, ``SQLConnection/wroteAttestedKeys(of:)``).
    static let attestedKeys = CachedTables(rawValue: 1 << 8)

    /// What deleting an environment writes: the row and everything of it that cascades (keys, tokens, attested keys,
    /// traffic).
    static let environmentCascade: CachedTables = [.environments, .apiKeys, .debugTokens, .attestedKeys, .trafficRollups]

    /// Each table, with its name as the store's SQL writes it.
    static let byName: [String: CachedTables] = [
        "environments": .environments, "android_apps": .environments, "android_app_digests": .environments,
        "apple_app_ids": .environments, "play_integrity_credentials": .environments, "device_check_keys": .environments,
        "api_keys": .apiKeys, "admins": .admins, "sessions": .sessions, "management_tokens": .managementTokens,
        "verdict_rollups": .trafficRollups, "verdict_observed_rollups": .trafficRollups, "enforcement_outcomes": .trafficRollups,
        "enforcement_routes": .environments, "receipt_keys": .receiptKeys,
        "debug_tokens": .debugTokens,
    ]

    /// Statements that write only bookkeeping no cache serves (when a token was last used, a session last seen): they declare nothing
    /// written, so routine authentication empties no cache on any server. The service that writes one updates its own
    /// cached value (``ReadCache/modify(_:_:)``).
    static let bookkeeping: Set<String> = [
        "UPDATE management_tokens SET last_used_at = ? WHERE id = ?",
        "UPDATE debug_tokens SET last_used_at = ? WHERE id = ?",
        "UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?",
    ]

    /// Each followed table with the name of its row in `revisions` (its main table's name).
    static let revisionNames: [(table: CachedTables, name: String)] = [
        (.environments, "environments"), (.apiKeys, "api_keys"), (.admins, "admins"), (.sessions, "sessions"),
        (.managementTokens, "management_tokens"), (.trafficRollups, "verdict_rollups"), (.receiptKeys, "receipt_keys"),
        (.debugTokens, "debug_tokens"),
        // Attested keys go only with their environment, whose API keys go in the same statement: they move with the
        // API keys' revision (no row of their own).
        (.attestedKeys, "api_keys"),
    ]

    /// The `revisions` rows of these tables.
    var revisionNames: [String] { Self.revisionNames.filter { contains($0.table) }.map(\.name) }

    /// The followed table a statement writes: the table after `INSERT INTO`, `UPDATE` or `DELETE FROM` (the store's
    /// tables write no other shape); empty for a statement that writes none of them, or none at all. Not how the store
    /// learns what a transaction wrote (table functions declare it, ``SQLConnection/wrote(_:)``): the check, in debug
    /// builds, that every statement's followed table was declared.
    static func written(by sql: String) -> CachedTables {
        if bookkeeping.contains(sql) { return [] }
        var utf8 = sql.utf8[...]
        func word() -> Substring.UTF8View {
            utf8 = utf8.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
            let end = utf8.firstIndex { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D || $0 == UInt8(ascii: "(") } ?? utf8.endIndex
            defer { utf8 = utf8[end...] }
            return utf8[..<end]
        }
        // ASCII letters compared without case (0xDF clears the lower-case bit).
        func isWord(_ bytes: Substring.UTF8View, _ upper: String) -> Bool {
            bytes.lazy.map { $0 & 0xDF }.elementsEqual(upper.utf8)
        }
        let verb = word()
        switch verb.first.map({ $0 & 0xDF }) {
        case UInt8(ascii: "I")?, UInt8(ascii: "U")?, UInt8(ascii: "D")?: break
        default: return []
        }
        if isWord(verb, "INSERT") || isWord(verb, "DELETE") {
            _ = word()  // INTO, FROM
        } else if !isWord(verb, "UPDATE") {
            return []
        }
        let table = word()
        guard !table.isEmpty else { return [] }
        return byName[String(decoding: table, as: UTF8.self).lowercased()] ?? []
    }
}

extension CachedTables {
    /// The tables whose `revisions` rows are `names`.
    init(revisionNames names: some Sequence<String>) {
        let wanted = Set(names)
        self = CachedTables(Self.revisionNames.filter { wanted.contains($0.name) }.map(\.table))
    }
}
