import Crypto
import JSON
import Storage

/// Reading and writing an environment's rows.
extension Environments {
    static func load(_ db: any SQLConnection, id: String) throws -> Environment? {
        try load(db, where: "id = ?", environmentWhere: "environment_id = ?", [.text(id)]).first
    }

    /// Every environment, oldest first, in five queries whatever their number.
    static func loadAll(_ db: any SQLConnection) throws -> [Environment] {
        try load(db, where: "1 = 1", environmentWhere: "1 = 1", [])
    }

    /// The environments matching `condition` (on `environments`) with everything registered in them (rows of the
    /// other tables matching `environmentCondition`), in creation order.
    private static func load(_ db: any SQLConnection, where condition: String, environmentWhere environmentCondition: String, _ arguments: [SQLValue]) throws -> [Environment] {
        var digests: [String: [String: [[UInt8]]]] = [:]
        try db.forEachRow("SELECT environment_id, package_name, digest FROM android_app_digests WHERE \(environmentCondition) ORDER BY environment_id, package_name, position", arguments) { r in
            digests[try r.text("environment_id"), default: [:]][try r.text("package_name"), default: []].append(try r.blob("digest"))
        }
        var apps: [String: [AndroidApp]] = [:]
        try db.forEachRow("SELECT environment_id, package_name, outside_play FROM android_apps WHERE \(environmentCondition) ORDER BY environment_id, position", arguments) { r in
            let env = try r.text("environment_id")
            let name = try r.text("package_name")
            apps[env, default: []].append(AndroidApp(packageName: name, certificateDigests: digests[env]?[name] ?? [], outsidePlay: try r.bool("outside_play")))
        }
        var appleIDs: [String: [String]] = [:]
        try db.forEachRow("SELECT environment_id, app_id FROM apple_app_ids WHERE \(environmentCondition) ORDER BY environment_id, position", arguments) { r in
            appleIDs[try r.text("environment_id"), default: []].append(try r.text("app_id"))
        }
        var credentials: [String: PlayIntegrityStatus] = [:]
        try db.forEachRow(
            "SELECT environment_id, service_account_sealed IS NOT NULL AS account, service_account_email, service_account_project, local_sealed IS NOT NULL AS local, local_key_sha256 FROM play_integrity_credentials WHERE \(environmentCondition)",
            arguments
        ) { c in
            var status = PlayIntegrityStatus()
            status.serviceAccountSet = try c.bool("account")
            status.serviceAccountEmail = try c.optionalText("service_account_email")
            status.serviceAccountProject = try c.optionalText("service_account_project")
            status.localSet = try c.bool("local")
            status.localVerificationKeySHA256 = try c.optionalText("local_key_sha256")
            credentials[try c.text("environment_id")] = status
        }
        var environments: [Environment] = []
        try db.forEachRow("SELECT id, name, kind, attack_mode, play_integrity_daily_quota, revision, created_at, updated_at FROM environments WHERE \(condition) ORDER BY created_at, id", arguments) { row in
            let id = try row.text("id")
            var playIntegrity = credentials[id] ?? PlayIntegrityStatus()
            playIntegrity.dailyQuota = try row.int("play_integrity_daily_quota")
            guard let kind = EnvironmentKind(rawValue: try row.text("kind")) else {
                throw StorageError(.malformedRow, "environments.kind is neither production nor development")
            }
            environments.append(Environment(
                id: id,
                name: try row.text("name"),
                kind: kind,
                attackMode: try row.bool("attack_mode"),
                androidApps: apps[id] ?? [],
                appleAppIDs: appleIDs[id] ?? [],
                playIntegrity: playIntegrity,
                revision: try row.integer("revision"),
                createdAt: try row.integer("created_at"),
                updatedAt: try row.integer("updated_at")
            ))
        }
        return environments
    }

    /// Writes the registered apps that differ between `before` and `after`; returns the audit changes of every field
    /// the model holds (name, kind, attack mode, apps).
    static func store(_ db: any SQLConnection, id: String, before: Environment, after: Environment) throws -> [AuditChange] {
        var changes: [AuditChange] = []
        if after.name != before.name { changes.append(AuditChange(field: "name", before: .string(before.name), after: .string(after.name))) }
        if after.kind != before.kind { changes.append(AuditChange(field: "kind", before: .string(before.kind.rawValue), after: .string(after.kind.rawValue))) }
        if after.attackMode != before.attackMode { changes.append(AuditChange(field: "attackMode", before: .bool(before.attackMode), after: .bool(after.attackMode))) }
        if after.playIntegrity.dailyQuota != before.playIntegrity.dailyQuota {
            changes.append(AuditChange(field: "playIntegrity.dailyQuota", before: .int(Int64(before.playIntegrity.dailyQuota)),
                                       after: .int(Int64(after.playIntegrity.dailyQuota))))
        }
        if after.androidApps != before.androidApps {
            changes.append(AuditChange(field: "androidApps", before: Environment.json(before.androidApps), after: Environment.json(after.androidApps)))
            try replaceAndroidApps(db, id: id, apps: after.androidApps)
        }
        if after.appleAppIDs != before.appleAppIDs {
            changes.append(AuditChange(field: "appleAppIds", before: .array(before.appleAppIDs.map { .string($0) }), after: .array(after.appleAppIDs.map { .string($0) })))
            try db.execute("DELETE FROM apple_app_ids WHERE environment_id = ?", [.text(id)])
            for (i, appID) in after.appleAppIDs.enumerated() {
                try db.execute("INSERT INTO apple_app_ids (environment_id, app_id, position) VALUES (?, ?, ?)", [.text(id), .text(appID), .integer(Int64(i))])
            }
        }
        return changes
    }

    static func replaceAndroidApps(_ db: any SQLConnection, id: String, apps: [AndroidApp]) throws {
        try db.execute("DELETE FROM android_apps WHERE environment_id = ?", [.text(id)])
        for (i, app) in apps.enumerated() {
            try db.execute(
                "INSERT INTO android_apps (environment_id, package_name, outside_play, position) VALUES (?, ?, ?, ?)",
                [.text(id), .text(app.packageName), SQLValue(app.outsidePlay), .integer(Int64(i))]
            )
            for (j, digest) in app.certificateDigests.enumerated() {
                try db.execute(
                    "INSERT INTO android_app_digests (environment_id, package_name, digest, position) VALUES (?, ?, ?, ?)",
                    [.text(id), .text(app.packageName), .blob(digest), .integer(Int64(j))]
                )
            }
        }
    }

    /// Seals and stores credential changes; returns audit changes with the values replaced by "[sealed]".
    static func applyCredentials(_ db: any SQLConnection, store: Store, id: String, patch: EnvironmentPatch, before: PlayIntegrityStatus) throws -> [AuditChange] {
        if patch.serviceAccount == .absent && patch.localKeys == .absent { return [] }
        try db.execute("INSERT INTO play_integrity_credentials (environment_id) VALUES (?) ON CONFLICT (environment_id) DO NOTHING", [.text(id)])
        var changes: [AuditChange] = []
        let marker = { (set: Bool) -> JSON in set ? AuditChange.sealed : .null }
        switch patch.serviceAccount {
        case .absent: break
        case .remove:
            try db.execute("UPDATE play_integrity_credentials SET service_account_sealed = NULL, service_account_email = NULL, service_account_project = NULL WHERE environment_id = ?", [.text(id)])
            if before.serviceAccountSet { changes.append(AuditChange(field: "playIntegrity.serviceAccount", before: marker(true), after: .null)) }
        case .set(let key):
            let sealed = try store.seal(key.document.serialized(), environmentID: id)
            try db.execute(
                "UPDATE play_integrity_credentials SET service_account_sealed = ?, service_account_email = ?, service_account_project = ? WHERE environment_id = ?",
                [.blob(sealed), .text(key.clientEmail), SQLValue(key.projectID), .text(id)]
            )
            changes.append(AuditChange(field: "playIntegrity.serviceAccount", before: marker(before.serviceAccountSet), after: AuditChange.sealed))
        }
        switch patch.localKeys {
        case .absent: break
        case .remove:
            try db.execute("UPDATE play_integrity_credentials SET local_sealed = NULL, local_key_sha256 = NULL WHERE environment_id = ?", [.text(id)])
            if before.localSet { changes.append(AuditChange(field: "playIntegrity.local", before: marker(true), after: .null)) }
        case .set(let keys):
            let sealed = try store.seal(keys.decryptionKey + keys.verificationKey, environmentID: id)
            try db.execute(
                "UPDATE play_integrity_credentials SET local_sealed = ?, local_key_sha256 = ? WHERE environment_id = ?",
                [.blob(sealed), .text(Hex.encode(SHA256.hash(keys.verificationKey))), .text(id)]
            )
            changes.append(AuditChange(field: "playIntegrity.local", before: marker(before.localSet), after: AuditChange.sealed))
        }
        try db.execute("DELETE FROM play_integrity_credentials WHERE environment_id = ? AND service_account_sealed IS NULL AND local_sealed IS NULL", [.text(id)])
        return changes
    }
}
