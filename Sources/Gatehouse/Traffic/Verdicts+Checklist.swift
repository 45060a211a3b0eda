import SQLite

extension Verdicts {
    /// The setup checklist of an environment now: its configuration against the week's rollups.
    public func checklist(for environment: Environment) throws -> ChecklistReport {
        try checklists(for: [environment])[environment.id] ?? Checklist.evaluate(configuration: ChecklistConfiguration(), rollups: [], now: store.clock())
    }

    /// The checklists of several environments at once (the environments list): one query for their keys, and each
    /// environment's week of rollups from the cache when it has not ingested since.
    public func checklists(for environments: [Environment]) throws -> [String: ChecklistReport] {
        let now = store.clock()
        var activeSecrets: [String: Int] = [:]
        try store.database.read { db in
            try db.forEachRow(
                "SELECT environment_id, COUNT(*) AS n FROM api_keys WHERE type = 'secret' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) GROUP BY environment_id",
                [.integer(now)]
            ) { row in
                if let id = row["environment_id"].string { activeSecrets[id] = row["n"].int ?? 0 }
            }
        }
        let cache = store.rollupCache
        var entries = cache.entries(environments.map(\.id), now: now)
        var changed: [String: RollupCache.Entry] = [:]
        var reports: [String: ChecklistReport] = [:]
        for environment in environments {
            let configuration = ChecklistConfiguration(
                kind: environment.kind.rawValue,
                attackMode: environment.attackMode,
                androidApps: environment.androidApps.map {
                    AndroidAppSetup(packageName: $0.packageName, certificateDigests: $0.certificateDigests.map(CertificateDigest.format), outsidePlay: $0.outsidePlay)
                },
                appleAppIds: environment.appleAppIDs,
                serviceAccountSet: environment.playIntegrity.serviceAccountSet,
                localKeysSet: environment.playIntegrity.localSet,
                activeSecretKeys: activeSecrets[environment.id] ?? 0
            )
            guard var entry = entries[environment.id] else { continue }
            if let cached = entry.report, cached.configuration == configuration {
                // The same hour's sums and the same configuration: only the window's ends move.
                var report = cached.report
                report.windowFrom = now - ChecklistThresholds().windowSeconds
                report.windowTo = now
                reports[environment.id] = report
                continue
            }
            let rollups = try entry.rollups ?? weekRollups(environmentID: environment.id, now: now)
            let report = Checklist.evaluate(configuration: configuration, rollups: rollups, now: now)
            entry.rollups = rollups
            entry.report = (configuration, report)
            entries[environment.id] = entry
            changed[environment.id] = entry
            reports[environment.id] = report
        }
        cache.keep(changed)
        return reports
    }
}
