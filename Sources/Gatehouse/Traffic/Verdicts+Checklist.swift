import SQLite

extension Verdicts {
    /// The setup checklist of an environment now: its configuration against the week's rollups.
    public func checklist(for environment: Environment) throws -> ChecklistReport {
        let now = store.clock()
        let activeSecrets = try store.database.read { db in
            try db.queryOne(
                "SELECT COUNT(*) AS n FROM api_keys WHERE environment_id = ? AND type = 'secret' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)",
                [.text(environment.id), .integer(now)]
            )?["n"].int ?? 0
        }
        let configuration = ChecklistConfiguration(
            kind: environment.kind.rawValue,
            attackMode: environment.attackMode,
            androidApps: environment.androidApps.map {
                AndroidAppSetup(packageName: $0.packageName, certificateDigests: $0.certificateDigests.map(CertificateDigest.format), outsidePlay: $0.outsidePlay)
            },
            appleAppIds: environment.appleAppIDs,
            serviceAccountSet: environment.playIntegrity.serviceAccountSet,
            localKeysSet: environment.playIntegrity.localSet,
            activeSecretKeys: activeSecrets
        )
        return Checklist.evaluate(configuration: configuration, rollups: try weekRollups(environmentID: environment.id, now: now), now: now)
    }
}
