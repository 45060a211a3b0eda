import Attestation
import Crypto
import JSON

/// A validated change to an environment, read from a JSON Merge Patch body (RFC 7396) in seed 003's wire format:
/// `name`, `kind`, `attackMode`, `androidApps`, `appleAppIds`, `playIntegrity.{serviceAccount, local, dailyQuota}`,
/// `enforcement.{mode, routes}`, `keyAttestation`, `appAttest.{validationCategories, requireValidationCategory, minimumBundleVersion,
/// riskMetricAbove, deviceCheckKey}`.
/// Arrays replace whole; `null` removes; absent members leave the field alone.
public struct EnvironmentPatch: Sendable, Equatable {
    public var name: String?
    public var kind: EnvironmentKind?
    public var attackMode: Bool?
    public var androidApps: Change<[AndroidApp]> = .absent
    public var appleAppIDs: Change<[String]> = .absent
    public var serviceAccount: Change<ServiceAccountKey> = .absent
    public var localKeys: Change<LocalDecodingKeys> = .absent
    /// `playIntegrity.dailyQuota`: set, or back to Google's default (`null`, or `playIntegrity: null`).
    public var dailyQuota: Change<Int> = .absent
    /// `playIntegrity.policy`, validated, applied member by member to the stored policy (`null`: today's rules).
    public var playIntegrityPolicy: PlayIntegrityPolicyEdit?
    /// `keyAttestation`, validated, applied member by member to the stored policy (`null`: the defaults).
    public var keyAttestationPolicy: KeyAttestationPolicyEdit?
    /// `enforcement.mode` (`enforcement: null` sets `off`).
    public var enforcementMode: EnforcementMode?
    /// `enforcement.routes`, the whole list (`null` removes them all).
    public var enforcementRoutes: [EnforcementRoute]?
    /// `appAttest.validationCategories` (`null`: accept any).
    public var validationCategories: Change<Set<ValidationCategory>> = .absent
    /// `appAttest.requireValidationCategory`.
    public var requireValidationCategory: Bool?
    /// `appAttest.minimumBundleVersion` (`null`: none).
    public var minimumBundleVersion: Change<String> = .absent
    /// `appAttest.riskMetricAbove` (`null`: observe only).
    public var riskMetricAbove: Change<Int> = .absent
    /// `appAttest.deviceCheckKey` (write-only; `null` removes it).
    public var deviceCheckKey: Change<DeviceCheckKey> = .absent

    public init() {}

    static let readOnlyFields: Set<String> = ["id", "createdAt", "updatedAt"]

    /// Reads and validates a patch document, a service account's `token_uri` against `tokenEndpoints`; throws a
    /// `ValidationError` listing every invalid field by pointer.
    public static func parse(_ json: JSON, tokenEndpoints: TokenEndpoints = TokenEndpoints()) throws(ValidationError) -> EnvironmentPatch {
        var errors = FieldErrors()
        var patch = EnvironmentPatch()
        guard let members = json.members else {
            throw ValidationError("", "the body must be a JSON object (a merge patch of the environment)")
        }
        for member in members {
            let pointer = Pointer.join("", member.key)
            switch member.key {
            case "name":
                patch.name = EnvironmentFields.name(member.value, at: pointer, errors: &errors)
            case "kind":
                patch.kind = EnvironmentFields.kind(member.value, at: pointer, errors: &errors)
            case "attackMode":
                if let b = member.value.bool { patch.attackMode = b } else { errors.add(pointer, "must be true or false") }
            case "androidApps":
                if member.value.isNull {
                    patch.androidApps = .remove
                } else if let apps = androidApps(member.value, at: pointer, errors: &errors) {
                    patch.androidApps = .set(apps)
                }
            case "appleAppIds":
                if member.value.isNull {
                    patch.appleAppIDs = .remove
                } else if let ids = appleAppIDs(member.value, at: pointer, errors: &errors) {
                    patch.appleAppIDs = .set(ids)
                }
            case "enforcement":
                (patch.enforcementMode, patch.enforcementRoutes) = EnforcementFields.parse(member.value, at: pointer, errors: &errors)
            case "appAttest":
                AppAttestFields.parse(member.value, at: pointer, into: &patch, errors: &errors)
            case "keyAttestation":
                patch.keyAttestationPolicy = KeyAttestationPolicyFields.parse(member.value, at: pointer, errors: &errors)
            case "playIntegrity":
                playIntegrity(member.value, at: pointer, tokenEndpoints: tokenEndpoints, into: &patch, errors: &errors)
            case let key where readOnlyFields.contains(key):
                errors.add(pointer, "is read-only and cannot be changed")
            case "playIntegrityStatus":
                errors.add(pointer, "is read-only and cannot be changed")
            default:
                errors.add(pointer, "is not a field of an environment (expected name, kind, attackMode, androidApps, appleAppIds, appAttest, playIntegrity, keyAttestation or enforcement)")
            }
        }
        try errors.throwIfAny()
        return patch
    }

    static func androidApps(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> [AndroidApp]? {
        guard let elements = value.array else {
            errors.add(pointer, "must be an array of Android apps, or null to remove them all")
            return nil
        }
        var apps: [AndroidApp] = []
        var seen: [String: Int] = [:]
        let before = errors.errors.count
        for (i, element) in elements.enumerated() {
            let at = Pointer.join(pointer, i)
            if let name = element["packageName"]?.string, PackageName.isValid(name) {
                if let first = seen[name] {
                    errors.add(Pointer.join(at, "packageName"), "duplicates \(pointer)/\(first)/packageName: register each package once and list all its digests there")
                    continue
                }
                seen[name] = i
            }
            if let app = AndroidAppFields.parse(element, at: at, errors: &errors) { apps.append(app) }
        }
        return errors.errors.count == before ? apps : nil
    }

    static func appleAppIDs(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> [String]? {
        guard let elements = value.array else {
            errors.add(pointer, "must be an array of app ids (TEAMID.bundleId), or null to remove them all")
            return nil
        }
        var ids: [String] = []
        var seen: [String: Int] = [:]
        let before = errors.errors.count
        for (i, element) in elements.enumerated() {
            let at = Pointer.join(pointer, i)
            guard let id = element.string else {
                errors.add(at, "must be a string: \(AppleAppID.expectation)")
                continue
            }
            guard AppleAppID.isValid(id) else {
                errors.add(at, "must be \(AppleAppID.expectation)")
                continue
            }
            if let first = seen[id] {
                errors.add(at, "duplicates \(pointer)/\(first)")
                continue
            }
            seen[id] = i
            ids.append(id)
        }
        return errors.errors.count == before ? ids : nil
    }

    static func playIntegrity(_ value: JSON, at pointer: String, tokenEndpoints: TokenEndpoints, into patch: inout EnvironmentPatch,
                              errors: inout FieldErrors) {
        if value.isNull {
            patch.serviceAccount = .remove
            patch.localKeys = .remove
            patch.dailyQuota = .remove
            patch.playIntegrityPolicy = PlayIntegrityPolicyEdit(reset: true, members: [])
            return
        }
        guard let members = value.members else {
            errors.add(pointer, "must be an object with serviceAccount, local and/or dailyQuota, or null to remove both credentials")
            return
        }
        for member in members {
            let at = Pointer.join(pointer, member.key)
            switch member.key {
            case "serviceAccount":
                if member.value.isNull {
                    patch.serviceAccount = .remove
                } else if let key = PlayIntegrityFields.serviceAccount(member.value, at: at, tokenEndpoints: tokenEndpoints, errors: &errors) {
                    patch.serviceAccount = .set(key)
                }
            case "local":
                if member.value.isNull {
                    patch.localKeys = .remove
                } else if let keys = PlayIntegrityFields.local(member.value, at: at, errors: &errors) {
                    patch.localKeys = .set(keys)
                }
            case "policy":
                patch.playIntegrityPolicy = PlayIntegrityPolicyFields.parse(member.value, at: at, errors: &errors)
            case "dailyQuota":
                if member.value.isNull {
                    patch.dailyQuota = .remove
                } else if let quota = member.value.integer, (1...PlayIntegrityStatus.maxDailyQuota).contains(quota) {
                    patch.dailyQuota = .set(Int(quota))
                } else {
                    errors.add(at, "must be the project's daily quota of decodes through Google, a whole number from 1 to \(PlayIntegrityStatus.maxDailyQuota) (Google's default: \(PlayIntegrityStatus.defaultDailyQuota)), or null for the default")
                }
            default:
                errors.add(at, "is not a Play Integrity setting (expected serviceAccount, local, dailyQuota or policy)")
            }
        }
    }
}
