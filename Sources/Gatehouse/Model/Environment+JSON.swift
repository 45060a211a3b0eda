import Attestation
import JSON

/// The wire form of an environment (seed 003 field names, camelCase). Secrets are never part of it: Play Integrity
/// credentials appear as `set` flags with non-secret identifiers.
extension Environment {
    public var json: JSON {
        .object([
            .init("id", .string(id)),
            .init("name", .string(name)),
            .init("kind", .string(kind.rawValue)),
            .init("attackMode", .bool(attackMode)),
            .init("androidApps", Self.json(androidApps)),
            .init("appleAppIds", .array(appleAppIDs.map { .string($0) })),
            .init("appAttest", appAttest.json),
            .init("playIntegrity", playIntegrity.json(kind: kind)),
            .init("keyAttestation", KeyAttestationPolicyFields.json(keyAttestation)),
            .init("enforcement", enforcement.json),
            .init("createdAt", .string(Timestamp.format(createdAt))),
            .init("updatedAt", .string(Timestamp.format(updatedAt))),
        ])
    }

    static func json(_ apps: [AndroidApp]) -> JSON {
        .array(apps.map { app in
            .object([
                .init("packageName", .string(app.packageName)),
                .init("certificateDigests", .array(app.certificateDigests.map { .string(CertificateDigest.format($0)) })),
                .init("outsidePlay", .bool(app.outsidePlay)),
            ])
        })
    }
}

extension PlayIntegrityStatus {
    /// `playIntegrity`: which credentials are set, the daily quota, and the policy as it applies in an environment of
    /// `kind`.
    public func json(kind: EnvironmentKind) -> JSON {
        var serviceAccount: [JSON.Member] = [.init("set", .bool(serviceAccountSet))]
        if serviceAccountSet {
            serviceAccount.append(.init("clientEmail", .optional(serviceAccountEmail)))
            serviceAccount.append(.init("projectId", .optional(serviceAccountProject)))
        }
        var local: [JSON.Member] = [.init("set", .bool(localSet))]
        if localSet { local.append(.init("verificationKeySha256", .optional(localVerificationKeySHA256))) }
        return .object([.init("serviceAccount", .object(serviceAccount)), .init("local", .object(local)), .init("dailyQuota", .int(Int64(dailyQuota))),
                        .init("policy", PlayIntegrityPolicyFields.json(policy, kind: kind))])
    }
}

extension AppAttestSettings {
    /// `appAttest`: the policy's members (`null` where unset) and whether a DeviceCheck key is set, with its non-secret
    /// identifiers.
    public var json: JSON {
        var key: [JSON.Member] = [.init("set", .bool(deviceCheckKey != nil))]
        if let id = deviceCheckKey {
            key.append(.init("keyId", .string(id.keyID)))
            key.append(.init("teamId", .string(id.teamID)))
        }
        return .object([
            .init("validationCategories", policy.validationCategories.map { categories in
                .array(categories.sorted().map { $0.name.map(JSON.string) ?? .int(Int64($0.value)) })
            } ?? .null),
            .init("requireValidationCategory", .bool(policy.requireValidationCategory)),
            .init("minimumBundleVersion", .optional(policy.minimumBundleVersion)),
            .init("riskMetricAbove", policy.riskMetricAbove.map { .int(Int64($0)) } ?? .null),
            .init("deviceCheckKey", .object(key)),
        ])
    }
}
