import Crypto
import JSON
import Storage

extension Environments {
    /// Seals and stores credential changes; returns audit changes with the values replaced by "[sealed]".
    static func applyCredentials(_ db: any SQLConnection, store: Store, id: String, patch: EnvironmentPatch, before: PlayIntegrityStatus) throws -> [AuditChange] {
        if patch.serviceAccount == .absent && patch.localKeys == .absent { return [] }
        try EnvironmentsTable.ensureCredentials(db, id: id)
        var changes: [AuditChange] = []
        let marker = { (set: Bool) -> JSON in set ? AuditChange.sealed : .null }
        switch patch.serviceAccount {
        case .absent: break
        case .remove:
            try EnvironmentsTable.setServiceAccount(db, id: id, sealed: nil, clientEmail: nil, projectID: nil)
            if before.serviceAccountSet { changes.append(AuditChange(field: "playIntegrity.serviceAccount", before: marker(true), after: .null)) }
        case .set(let key):
            let sealed = try store.seal(key.document.serialized(), environmentID: id)
            try EnvironmentsTable.setServiceAccount(db, id: id, sealed: sealed, clientEmail: key.clientEmail, projectID: key.projectID)
            changes.append(AuditChange(field: "playIntegrity.serviceAccount", before: marker(before.serviceAccountSet), after: AuditChange.sealed))
        }
        switch patch.localKeys {
        case .absent: break
        case .remove:
            try EnvironmentsTable.setLocalKeys(db, id: id, sealed: nil, verificationKeySHA256: nil)
            if before.localSet { changes.append(AuditChange(field: "playIntegrity.local", before: marker(true), after: .null)) }
        case .set(let keys):
            let sealed = try store.seal(keys.decryptionKey + keys.verificationKey, environmentID: id)
            try EnvironmentsTable.setLocalKeys(db, id: id, sealed: sealed, verificationKeySHA256: Hex.encode(SHA256.hash(keys.verificationKey)))
            changes.append(AuditChange(field: "playIntegrity.local", before: marker(before.localSet), after: AuditChange.sealed))
        }
        try EnvironmentsTable.dropEmptyCredentials(db, id: id)
        return changes
    }

    /// Seals and stores a DeviceCheck key change (a new key also forgets Apple's refusal of the old one); returns
    /// the audit change with the key replaced by its identifiers and "[sealed]".
    static func applyDeviceCheckKey(_ db: any SQLConnection, store: Store, id: String, change: Change<DeviceCheckKey>,
                                    before: DeviceCheckKeyID?) throws -> [AuditChange] {
        let described = { (key: DeviceCheckKeyID?) -> JSON in
            key.map { .object([.init("keyId", .string($0.keyID)), .init("teamId", .string($0.teamID)), .init("privateKey", AuditChange.sealed)]) } ?? .null
        }
        switch change {
        case .absent:
            return []
        case .remove:
            guard before != nil else { return [] }
            try DeviceCheckKeysTable.delete(db, environmentID: id)
            return [AuditChange(field: "appAttest.deviceCheckKey", before: described(before), after: .null)]
        case .set(let key):
            let sealed = try store.seal(Array(key.privateKeyPEM.utf8), environmentID: id)
            try DeviceCheckKeysTable.replace(db, environmentID: id, key: key.id, sealed: sealed)
            return [AuditChange(field: "appAttest.deviceCheckKey", before: described(before), after: described(key.id))]
        }
    }

    /// The audit changes of every field the model holds (name, kind, attack mode, quota, apps) between `before` and
    /// `after`; writes the registered apps that differ.
    static func store(_ db: any SQLConnection, id: String, before: Environment, after: Environment) throws -> [AuditChange] {
        var changes: [AuditChange] = []
        if after.name != before.name { changes.append(AuditChange(field: "name", before: .string(before.name), after: .string(after.name))) }
        if after.kind != before.kind { changes.append(AuditChange(field: "kind", before: .string(before.kind.rawValue), after: .string(after.kind.rawValue))) }
        if after.attackMode != before.attackMode { changes.append(AuditChange(field: "attackMode", before: .bool(before.attackMode), after: .bool(after.attackMode))) }
        if after.playIntegrity.dailyQuota != before.playIntegrity.dailyQuota {
            changes.append(AuditChange(field: "playIntegrity.dailyQuota", before: .int(Int64(before.playIntegrity.dailyQuota)),
                                       after: .int(Int64(after.playIntegrity.dailyQuota))))
        }
        if after.playIntegrity.policy != before.playIntegrity.policy {
            changes.append(AuditChange(field: "playIntegrity.policy", before: PlayIntegrityPolicyFields.json(before.playIntegrity.policy, kind: before.kind),
                                       after: PlayIntegrityPolicyFields.json(after.playIntegrity.policy, kind: after.kind)))
        }
        if after.keyAttestation != before.keyAttestation {
            changes.append(AuditChange(field: "keyAttestation", before: KeyAttestationPolicyFields.json(before.keyAttestation),
                                       after: KeyAttestationPolicyFields.json(after.keyAttestation)))
        }
        if after.androidApps != before.androidApps {
            changes.append(AuditChange(field: "androidApps", before: Environment.json(before.androidApps), after: Environment.json(after.androidApps)))
            try EnvironmentsTable.replaceAndroidApps(db, id: id, apps: after.androidApps)
        }
        if after.appAttest.policy != before.appAttest.policy {
            let json = { (settings: AppAttestSettings) -> JSON in
                var members = settings.json.members ?? []
                members.removeAll { $0.key == "deviceCheckKey" }
                return .object(members)
            }
            changes.append(AuditChange(field: "appAttest", before: json(before.appAttest), after: json(after.appAttest)))
        }
        if after.enforcement.mode != before.enforcement.mode {
            changes.append(AuditChange(field: "enforcement.mode", before: .string(before.enforcement.mode.rawValue), after: .string(after.enforcement.mode.rawValue)))
        }
        if after.enforcement.routes != before.enforcement.routes {
            changes.append(AuditChange(field: "enforcement.routes", before: before.enforcement.json["routes"] ?? .null, after: after.enforcement.json["routes"] ?? .null))
            try EnvironmentsTable.replaceRoutes(db, id: id, routes: after.enforcement.routes)
        }
        if after.appleAppIDs != before.appleAppIDs {
            changes.append(AuditChange(field: "appleAppIds", before: .array(before.appleAppIDs.map { .string($0) }), after: .array(after.appleAppIDs.map { .string($0) })))
            try EnvironmentsTable.replaceAppleAppIDs(db, id: id, ids: after.appleAppIDs)
        }
        return changes
    }
}
