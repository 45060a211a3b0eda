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

/// Reads the per-app-id counts of attested keys.
public struct AttestedKeyCounts: Sendable {
    let store: Store

    public init(store: Store) {
        self.store = store
    }

    /// Counts per app id of `environmentID` (app ids with no key are absent). One pass over the environment's keys
    /// through the index on (environment_id, app_id, attestation_environment).
    /// - Throws: `DatabaseError`.
    public func perApp(environmentID: String) throws -> [String: AppKeyCount] {
        var counts: [String: AppKeyCount] = [:]
        try store.read { db in
            try db.forEachRow(
                "SELECT app_id, attestation_environment, COUNT(*) AS n, MAX(last_used_at) AS last FROM attested_keys WHERE environment_id = ? GROUP BY app_id, attestation_environment",
                [.text(environmentID)]
            ) { row in
                let appID = try row.text("app_id")
                var count = counts[appID] ?? AppKeyCount(appID: appID)
                let n = try row.int("n")
                if try row.text("attestation_environment") == "development" { count.development += n } else { count.production += n }
                if let last = try row.optionalInteger("last") { count.lastAssertionAt = max(count.lastAssertionAt ?? last, last) }
                counts[appID] = count
            }
        }
        return counts
    }
}
