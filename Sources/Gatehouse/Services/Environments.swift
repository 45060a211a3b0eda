import Foundation
import JSON
import Storage

/// Environments and what is registered in them: create, read, patch (JSON Merge Patch semantics), delete.
/// Each change is one transaction with its audit entry.
public struct Environments: Sendable {
    let store: Store
    /// Environments as last read (`.all` for the whole list); follows the environments.
    let cache: ReadCache<EnvironmentQuery, [Environment]>
    /// Environment bodies by entity tag: a revision's JSON never changes, so it is serialized once (and needs no
    /// following).
    let bodies = ReadCache<String, [UInt8]>(limit: 1_000)

    /// The service over `store`: one per domain (``Domain``), as its cache follows the store's writes for as long as
    /// the store lives.
    init(_: Wiring, store: Store) {
        self.store = store
        cache = store.cache(limit: 10_000, following: .environments)
    }

    /// A new environment with its first public and secret key. The secret's plaintext is returned only here.
    public func create(name: String, kind: EnvironmentKind, actor: AuditActor) throws -> (environment: Environment, keys: [IssuedKey]) {
        let now = store.clock()
        let id = try RandomToken.identifier(prefix: "env_")
        return try store.write { db in
            try EnvironmentsTable.insert(db, id: id, name: name, kind: kind, now: now)
            let keys = [
                try APIKeys.issue(db, environmentID: id, kind: kind, type: .public, name: "Default public key", now: now),
                try APIKeys.issue(db, environmentID: id, kind: kind, type: .secret, name: "Default secret key", now: now),
            ]
            try AuditLogTable.record(db, at: now, actor: actor, action: "environment.create", environmentID: id, changes: [
                AuditChange(field: "name", before: .null, after: .string(name)),
                AuditChange(field: "kind", before: .null, after: .string(kind.rawValue)),
            ])
            guard let environment = try EnvironmentsTable.load(db, id: id) else { throw DomainError.notFound("environment \(id)") }
            return (environment, keys)
        }
    }

    /// Every environment, oldest first.
    public func list() throws -> [Environment] {
        try cache.value(.all) { try store.read { db in try EnvironmentsTable.loadAll(db) } } ?? []
    }

    /// `environment`'s JSON, serialized once per revision.
    public func serialized(_ environment: Environment) -> [UInt8] {
        bodies.value(environment.etag) { environment.json.serialized() } ?? []
    }

    /// One environment; throws `DomainError.notFound`.
    public func get(_ id: String) throws -> Environment {
        let found = try cache.value(.one(id)) {
            try store.read { db in try EnvironmentsTable.load(db, id: id) }.map { [$0] }
        }
        guard let environment = found?.first else { throw DomainError.notFound("no environment \(id)") }
        return environment
    }

    /// Applies a validated patch atomically. `ifMatch` (an entity tag, or `*`) makes it conditional.
    public func patch(_ id: String, with patch: EnvironmentPatch, ifMatch: String? = nil, actor: AuditActor) throws -> Environment {
        let store = self.store
        return try update(id, ifMatch: ifMatch, actor: actor) { db, environment in
            if let name = patch.name { environment.name = name }
            if let kind = patch.kind { environment.kind = kind }
            if let attackMode = patch.attackMode { environment.attackMode = attackMode }
            switch patch.androidApps {
            case .absent: break
            case .remove: environment.androidApps = []
            case .set(let apps): environment.androidApps = apps
            }
            switch patch.appleAppIDs {
            case .absent: break
            case .remove: environment.appleAppIDs = []
            case .set(let ids): environment.appleAppIDs = ids
            }
            if let mode = patch.enforcementMode { environment.enforcement.mode = mode }
            if let routes = patch.enforcementRoutes { environment.enforcement.routes = routes }
            switch patch.validationCategories {
            case .absent: break
            case .remove: environment.appAttest.policy.validationCategories = nil
            case .set(let categories): environment.appAttest.policy.validationCategories = categories
            }
            if let required = patch.requireValidationCategory { environment.appAttest.policy.requireValidationCategory = required }
            switch patch.minimumBundleVersion {
            case .absent: break
            case .remove: environment.appAttest.policy.minimumBundleVersion = nil
            case .set(let version): environment.appAttest.policy.minimumBundleVersion = version
            }
            switch patch.riskMetricAbove {
            case .absent: break
            case .remove: environment.appAttest.policy.riskMetricAbove = nil
            case .set(let bound): environment.appAttest.policy.riskMetricAbove = bound
            }
            patch.playIntegrityPolicy?.apply(to: &environment.playIntegrity.policy)
            patch.keyAttestationPolicy?.apply(to: &environment.keyAttestation)
            switch patch.dailyQuota {
            case .absent: break
            case .remove: environment.playIntegrity.dailyQuota = PlayIntegrityStatus.defaultDailyQuota
            case .set(let quota): environment.playIntegrity.dailyQuota = quota
            }
            return try Self.applyCredentials(db, store: store, id: id, patch: patch, before: environment.playIntegrity)
                + Self.applyDeviceCheckKey(db, store: store, id: id, change: patch.deviceCheckKey, before: environment.appAttest.deviceCheckKey)
        }
    }

    /// One change to an environment, in one write transaction: reads it there (so the change applies to what is
    /// stored, not to a copy read earlier), checks `ifMatch`, lets `change` edit it (and write what the model does
    /// not hold, returning those audit changes), then writes the difference with one audit entry.
    func update(_ id: String, ifMatch: String? = nil, actor: AuditActor,
                _ change: (any SQLConnection, inout Environment) throws -> [AuditChange]) throws -> Environment {
        let now = store.clock()
        let store = self.store
        return try store.write { db in
            guard try EnvironmentsTable.lock(db, id: id), let before = try EnvironmentsTable.load(db, id: id) else {
                throw DomainError.notFound("no environment \(id)")
            }
            try Self.check(ifMatch, against: before)
            var after = before
            let written = try change(db, &after)
            let changes = try Self.store(db, id: id, before: before, after: after) + written
            if !changes.isEmpty {
                try EnvironmentsTable.update(db, after, now: now)
                try AuditLogTable.record(db, at: now, actor: actor, action: "environment.update", environmentID: id, changes: changes)
            }
            guard let result = try EnvironmentsTable.load(db, id: id) else { throw DomainError.notFound("no environment \(id)") }
            return result
        }
    }

    /// Deletes an environment with everything registered in it; its audit entries stay.
    public func delete(_ id: String, ifMatch: String? = nil, actor: AuditActor) throws {
        let now = store.clock()
        try store.write { db in
            guard try EnvironmentsTable.lock(db, id: id), let before = try EnvironmentsTable.load(db, id: id) else {
                throw DomainError.notFound("no environment \(id)")
            }
            try Self.check(ifMatch, against: before)
            try EnvironmentsTable.delete(db, id: id)
            try AuditLogTable.record(db, at: now, actor: actor, action: "environment.delete", environmentID: id, changes: [
                AuditChange(field: "name", before: .string(before.name), after: .null),
            ])
        }
    }

    /// The stored Play Integrity credentials, unsealed (for the verification engine; never for responses).
    public func credentials(_ id: String) throws -> (serviceAccount: JSON?, local: LocalDecodingKeys?) {
        let store = self.store
        return try store.read { db in
            guard let sealed = try EnvironmentsTable.sealedCredentials(db, id: id) else { return (nil, nil) }
            var account: JSON?
            var local: LocalDecodingKeys?
            if let sealed = sealed.serviceAccount {
                account = try JSONParser.parse(try store.open(sealed, environmentID: id))
            }
            if let sealed = sealed.local {
                let opened = try store.open(sealed, environmentID: id)
                if opened.count > 32 { local = LocalDecodingKeys(decryptionKey: Array(opened[0..<32]), verificationKey: Array(opened[32...])) }
            }
            return (account, local)
        }
    }

    static func check(_ ifMatch: String?, against environment: Environment) throws {
        guard let ifMatch else { return }
        let tags = ifMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if tags.contains("*") || tags.contains(environment.etag) { return }
        throw DomainError.preconditionFailed("the environment changed since \(ifMatch); it is now at \(environment.etag): GET it again and reapply your change")
    }
}

/// What an entry of the environments' cache holds: every environment, or one.
enum EnvironmentQuery: Hashable, Sendable {
    case all
    case one(String)
}
