import Attestation
import Crypto
import GatehouseReceipts
import JSON
import Storage

/// The `environments` table and the tables of what is registered in one (`android_apps`, `android_app_digests`,
/// `apple_app_ids`, `play_integrity_credentials`), read and written together.
enum EnvironmentsTable {
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
        var routes: [String: [EnforcementRoute]] = [:]
        try db.forEachRow(
            "SELECT environment_id, name, pattern, mode, require_bound, require_attestation, require_debug, consume FROM enforcement_routes WHERE \(environmentCondition) ORDER BY environment_id, position",
            arguments
        ) { r in
            routes[try r.text("environment_id"), default: []].append(try route(r))
        }
        let deviceCheckKeys = try DeviceCheckKeysTable.identifiers(db, where: environmentCondition, arguments)
        var environments: [Environment] = []
        try db.forEachRow("SELECT id, name, kind, attack_mode, enforcement_mode, play_integrity_daily_quota, play_integrity_policy, key_attestation_policy, \(appAttestColumns), revision, created_at, updated_at FROM environments WHERE \(condition) ORDER BY created_at, id", arguments) { row in
            let id = try row.text("id")
            var playIntegrity = credentials[id] ?? PlayIntegrityStatus()
            playIntegrity.dailyQuota = try row.int("play_integrity_daily_quota")
            do {
                playIntegrity.policy = try PlayIntegrityPolicyFields.read(try row.optionalText("play_integrity_policy"))
            } catch {
                throw StorageError(.malformedRow, "environments.play_integrity_policy does not read: \(error)")
            }
            let keyAttestation: KeyAttestationPolicy
            do {
                keyAttestation = try KeyAttestationPolicyFields.read(try row.optionalText("key_attestation_policy"))
            } catch {
                throw StorageError(.malformedRow, "environments.key_attestation_policy does not read: \(error)")
            }
            environments.append(Environment(
                id: id,
                name: try row.text("name"),
                kind: try kind(row),
                attackMode: try row.bool("attack_mode"),
                androidApps: apps[id] ?? [],
                appleAppIDs: appleIDs[id] ?? [],
                playIntegrity: playIntegrity,
                enforcement: EnforcementSettings(mode: try mode(row, "enforcement_mode") ?? .off, routes: routes[id] ?? []),
                appAttest: try appAttest(row, deviceCheckKey: deviceCheckKeys[id]),
                keyAttestation: keyAttestation,
                revision: try row.integer("revision"),
                createdAt: try row.integer("created_at"),
                updatedAt: try row.integer("updated_at")
            ))
        }
        return environments
    }

    /// Replaces the environment's Apple app ids with `ids`, in order.
    static func replaceAppleAppIDs(_ db: any SQLConnection, id: String, ids: [String]) throws {
        db.wrote(.environments)
        try db.execute("DELETE FROM apple_app_ids WHERE environment_id = ?", [.text(id)])
        for (i, appID) in ids.enumerated() {
            try db.execute("INSERT INTO apple_app_ids (environment_id, app_id, position) VALUES (?, ?, ?)", [.text(id), .text(appID), .integer(Int64(i))])
        }
    }

    /// Inserts a new environment (revision 1, attack mode off).
    static func insert(_ db: any SQLConnection, id: String, name: String, kind: EnvironmentKind, now: Int64) throws {
        db.wrote(.environments)
        try db.execute(
            "INSERT INTO environments (id, name, kind, attack_mode, revision, created_at, updated_at) VALUES (?, ?, ?, 0, 1, ?, ?)",
            [.text(id), .text(name), .text(kind.rawValue), .integer(now), .integer(now)]
        )
    }

    /// Takes the environment's row for this write transaction before it is read (a no-op update: PostgreSQL locks the
    /// row until the transaction ends, so concurrent changes through several servers apply one after the other,
    /// each to what the one before stored; SQLite's one writer serializes them anyway). False when there is none.
    static func lock(_ db: any SQLConnection, id: String) throws -> Bool {
        db.locks(.environments)
        return try db.execute("UPDATE environments SET revision = revision WHERE id = ?", [.text(id)]) == 1
    }

    /// Writes the environment's own fields and moves its revision on.
    static func update(_ db: any SQLConnection, _ environment: Environment, now: Int64) throws {
        db.wrote(.environments)
        let policy = environment.appAttest.policy
        try db.execute(
            """
            UPDATE environments SET name = ?, kind = ?, attack_mode = ?, enforcement_mode = ?, play_integrity_daily_quota = ?, play_integrity_policy = ?,
            key_attestation_policy = ?,
            app_attest_categories = ?, app_attest_require_category = ?, app_attest_minimum_bundle_version = ?, app_attest_risk_metric_above = ?,
            revision = revision + 1, updated_at = ? WHERE id = ?
            """,
            [.text(environment.name), .text(environment.kind.rawValue), SQLValue(environment.attackMode), .text(environment.enforcement.mode.rawValue),
             .integer(Int64(environment.playIntegrity.dailyQuota)), SQLValue(PlayIntegrityPolicyFields.stored(environment.playIntegrity.policy)),
             SQLValue(KeyAttestationPolicyFields.stored(environment.keyAttestation)),
             SQLValue(policy.validationCategories.map { $0.sorted().map { String($0.value) }.joined(separator: ",") }),
             SQLValue(policy.requireValidationCategory), SQLValue(policy.minimumBundleVersion), SQLValue(policy.riskMetricAbove.map(Int64.init)),
             .integer(now), .text(environment.id)]
        )
    }

    /// Deletes the environment and, by cascade, everything registered in it.
    static func delete(_ db: any SQLConnection, id: String) throws {
        db.wrote(.environmentCascade)
        try db.execute("DELETE FROM environments WHERE id = ?", [.text(id)])
    }

    /// The kind of environment `id`; `DomainError.notFound` when there is none.
    static func kind(_ db: any SQLConnection, id: String) throws -> EnvironmentKind {
        guard let row = try db.queryOne("SELECT kind FROM environments WHERE id = ?", [.text(id)]) else {
            throw DomainError.notFound("no environment \(id)")
        }
        return try kind(row)
    }

    /// Whether environment `id` exists.
    static func exists(_ db: any SQLConnection, id: String) throws -> Bool {
        try db.queryOne("SELECT 1 AS found FROM environments WHERE id = ?", [.text(id)]) != nil
    }

    /// The ids of every environment.
    static func ids(_ db: any SQLConnection) throws -> [String] {
        try db.query("SELECT id FROM environments").map { try $0.text("id") }
    }

    static let appAttestColumns = "app_attest_categories, app_attest_require_category, app_attest_minimum_bundle_version, app_attest_risk_metric_above"

    static func appAttest(_ row: Row, deviceCheckKey: DeviceCheckKeyID?) throws -> AppAttestSettings {
        var settings = AppAttestSettings()
        settings.deviceCheckKey = deviceCheckKey
        if let text = try row.optionalText("app_attest_categories"), !text.isEmpty {
            var categories = Set<ValidationCategory>()
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let number = UInt32(part) else { throw StorageError(.malformedRow, "environments.app_attest_categories is not a list of numbers") }
                categories.insert(ValidationCategory(number))
            }
            settings.policy.validationCategories = categories
        }
        settings.policy.requireValidationCategory = try row.bool("app_attest_require_category")
        settings.policy.minimumBundleVersion = try row.optionalText("app_attest_minimum_bundle_version")
        settings.policy.riskMetricAbove = try row.optionalInteger("app_attest_risk_metric_above").map(Int.init)
        return settings
    }

    static func kind(_ row: Row) throws -> EnvironmentKind {
        guard let kind = EnvironmentKind(rawValue: try row.text("kind")) else {
            throw StorageError(.malformedRow, "environments.kind is neither production nor development")
        }
        return kind
    }

    /// The sealed Play Integrity credentials of environment `id` (nil when none is stored).
    static func sealedCredentials(_ db: any SQLConnection, id: String) throws -> (serviceAccount: [UInt8]?, local: [UInt8]?)? {
        guard let row = try db.queryOne("SELECT service_account_sealed, local_sealed FROM play_integrity_credentials WHERE environment_id = ?", [.text(id)]) else {
            return nil
        }
        return (try row.optionalBlob("service_account_sealed"), try row.optionalBlob("local_sealed"))
    }

    /// Replaces the environment's enforcement routes with `routes`, in order.
    static func replaceRoutes(_ db: any SQLConnection, id: String, routes: [EnforcementRoute]) throws {
        db.wrote(.environments)
        try db.execute("DELETE FROM enforcement_routes WHERE environment_id = ?", [.text(id)])
        for (i, route) in routes.enumerated() {
            try db.execute(
                "INSERT INTO enforcement_routes (environment_id, position, name, pattern, mode, require_bound, require_attestation, require_debug, consume) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(id), .integer(Int64(i)), .text(route.name), .text(route.match.text), SQLValue(route.mode?.rawValue),
                 SQLValue(route.require.requiresBound), SQLValue(route.require.requiresVerifiedAttestation), SQLValue(route.require.allowsDebug),
                 SQLValue(route.consume)]
            )
        }
    }

    static func route(_ r: Row) throws -> EnforcementRoute {
        let match: RouteMatch, pattern = try r.text("pattern")
        do {
            match = try RouteMatch(pattern)
        } catch {
            throw StorageError(.malformedRow, "enforcement_routes.pattern: \(error.message)")
        }
        return EnforcementRoute(name: try r.text("name"), match: match, mode: try mode(r, "mode"),
                                require: ReceiptPolicy(requiresBound: try r.bool("require_bound"), requiresVerifiedAttestation: try r.bool("require_attestation"),
                                                       allowsDebug: try r.bool("require_debug")),
                                consume: try r.bool("consume"))
    }

    static func mode(_ r: Row, _ column: String) throws -> EnforcementMode? {
        guard let text = try r.optionalText(column) else { return nil }
        guard let mode = EnforcementMode(rawValue: text) else { throw StorageError(.malformedRow, "\(column) is not off, monitor or enforce") }
        return mode
    }

    static func replaceAndroidApps(_ db: any SQLConnection, id: String, apps: [AndroidApp]) throws {
        db.wrote(.environments)
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

    /// Makes sure environment `id` has a credentials row.
    static func ensureCredentials(_ db: any SQLConnection, id: String) throws {
        db.wrote(.environments)
        try db.execute("INSERT INTO play_integrity_credentials (environment_id) VALUES (?) ON CONFLICT (environment_id) DO NOTHING", [.text(id)])
    }

    /// Stores the sealed service account of environment `id` (nil: removes it).
    static func setServiceAccount(_ db: any SQLConnection, id: String, sealed: [UInt8]?, clientEmail: String?, projectID: String?) throws {
        db.wrote(.environments)
        try db.execute(
            "UPDATE play_integrity_credentials SET service_account_sealed = ?, service_account_email = ?, service_account_project = ? WHERE environment_id = ?",
            [SQLValue(sealed), SQLValue(clientEmail), SQLValue(projectID), .text(id)]
        )
    }

    /// Stores the sealed local keys of environment `id` and the SHA-256 of the verification key (nil: removes them).
    static func setLocalKeys(_ db: any SQLConnection, id: String, sealed: [UInt8]?, verificationKeySHA256: String?) throws {
        db.wrote(.environments)
        try db.execute("UPDATE play_integrity_credentials SET local_sealed = ?, local_key_sha256 = ? WHERE environment_id = ?",
                       [SQLValue(sealed), SQLValue(verificationKeySHA256), .text(id)])
    }

    /// Deletes the credentials row of environment `id` when it holds neither credential.
    static func dropEmptyCredentials(_ db: any SQLConnection, id: String) throws {
        db.wrote(.environments)
        try db.execute("DELETE FROM play_integrity_credentials WHERE environment_id = ? AND service_account_sealed IS NULL AND local_sealed IS NULL", [.text(id)])
    }
}
