import Storage

/// How many App Attest keys an app id has registered in an environment, by attestation environment, and when one of
/// them last had an assertion verified: what the dashboard's Apps page shows beside each app id.
public struct AppKeyCount: Sendable, Equatable {
    public var appID: String
    public var production: Int
    public var development: Int
    /// Unix seconds of the latest verified assertion by any of the keys (nil: none yet).
    public var lastAssertionAt: Int64?

    /// A count for `appID`.
    public init(appID: String, production: Int = 0, development: Int = 0, lastAssertionAt: Int64? = nil) {
        self.appID = appID
        self.production = production
        self.development = development
        self.lastAssertionAt = lastAssertionAt
    }
}

/// Reads the counts of attested keys: App Attest keys per app id, key attestation keys per package.
public struct AttestedKeyCounts: Sendable {
    let store: Store

    init(_: Wiring, store: Store) {
        self.store = store
    }

    /// Counts per app id of `environmentID` (app ids with no key are absent). One pass over the environment's keys
    /// through the index on (environment_id, app_id, attestation_environment).
    /// - Throws: `StorageError`.
    public func perApp(environmentID: String) throws -> [String: AppKeyCount] {
        var counts: [String: AppKeyCount] = [:]
        try store.read { db in
            try AttestedKeysTable.countsPerApp(db, environmentID: environmentID) { appID, environment, n, last in
                var count = counts[appID] ?? AppKeyCount(appID: appID)
                if environment == .development { count.development += n } else { count.production += n }
                if let last { count.lastAssertionAt = max(count.lastAssertionAt ?? last, last) }
                counts[appID] = count
            }
        }
        return counts
    }

    /// How many Android keys a key attestation stored per package of `environmentID` (packages with none are absent).
    /// - Throws: `StorageError`.
    public func perPackage(environmentID: String) throws -> [String: Int] {
        try store.read { db in
            var counts: [String: Int] = [:]
            try KeyAttestationKeysTable.countsPerPackage(db, environmentID: environmentID) { counts[$0] = $1 }
            return counts
        }
    }
}
