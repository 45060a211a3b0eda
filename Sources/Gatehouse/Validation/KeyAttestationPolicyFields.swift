import Attestation
import JSON

/// `keyAttestation` read and written (docs/device-api.md "Android Key Attestation", "The policy"): each member checked
/// by pointer; absent members keep their value, `null` sets one back to its default. Nothing is applied when any
/// member is at fault. The offline command's `--policy` is read by the same rules.
public enum KeyAttestationPolicyFields {
    /// The most boot keys a policy lists.
    public static let maxBootKeys = 100

    /// Applies `value` (an object, or null for the defaults) to `policy`; every fault added to `errors` (and then
    /// nothing applied).
    public static func apply(_ value: JSON, at pointer: String, to policy: inout KeyAttestationPolicy, errors: inout FieldErrors) {
        parse(value, at: pointer, errors: &errors)?.apply(to: &policy)
    }

    /// Reads `value` (an object, or null for the defaults) into the change it makes; nil with every fault added to
    /// `errors`. Read once, when a patch is read: applying it checks nothing again.
    public static func parse(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> KeyAttestationPolicyEdit? {
        if value.isNull { return KeyAttestationPolicyEdit(reset: true, members: []) }
        guard let members = value.members else {
            errors.add(pointer, "must be an object with the policy's members, or null for the defaults")
            return nil
        }
        let before = errors.errors.count
        var edits: [KeyAttestationPolicyEdit.Member] = []
        let defaults = KeyAttestationPolicy()
        for member in members {
            let at = Pointer.join(pointer, member.key)
            let value = member.value
            switch member.key {
            case "enabled", "requireLocked":
                let flag: Bool
                if value.isNull { flag = member.key == "enabled" ? defaults.enabled : defaults.requireLocked }
                else if let bool = value.bool { flag = bool }
                else { errors.add(at, "must be true or false, or null for the default"); continue }
                edits.append(member.key == "enabled" ? .enabled(flag) : .requireLocked(flag))
            case "securityLevel":
                if value.isNull { edits.append(.securityLevel(defaults.securityLevel)) }
                else if let level = value.string.flatMap(KeySecurityLevel.init(name:)), level != .software { edits.append(.securityLevel(level)) }
                else { errors.add(at, "must be tee (a trusted execution environment) or strongbox (a secure element)") }
            case "bootKeys":
                if value.isNull { edits.append(.bootKeys([])); continue }
                guard let elements = value.array, elements.count <= maxBootKeys else {
                    errors.add(at, "must be an array of at most \(maxBootKeys) boot keys (64 hex digits each), or null for none")
                    continue
                }
                var keys: [String] = []
                for (i, element) in elements.enumerated() {
                    guard let text = element.string?.lowercased(), text.count == 64, text.allSatisfy(\.isHexDigit) else {
                        errors.add(Pointer.join(at, String(i)), "must be a boot key: 64 hex digits (the SHA-256 a phone's attestation names as verifiedBootKey)")
                        continue
                    }
                    if !keys.contains(text) { keys.append(text) }
                }
                edits.append(.bootKeys(keys))
            case "minimumPatchLevel":
                if value.isNull { edits.append(.minimumPatchLevel(nil)) }
                else if let level = value.string.flatMap(KeyAttestationPolicy.patchLevel) { edits.append(.minimumPatchLevel(level)) }
                else { errors.add(at, "must be a month as YYYY-MM (the oldest security patch accepted), or null for none") }
            case "minimumVersionCode":
                if let codes = VersionCodeFields.parse(value, at: at, errors: &errors) { edits.append(.minimumVersionCode(codes)) }
            case "revocation":
                if value.isNull { edits.append(.revocation(defaults.revocation)) }
                else if let handling = value.string.flatMap(KeyAttestationPolicy.Revocation.init(rawValue:)) { edits.append(.revocation(handling)) }
                else { errors.add(at, "must be refuse (a revoked certificate rejects the key) or observe (only said in observed)") }
            default:
                errors.add(at, "is not a member of keyAttestation (enabled, securityLevel, bootKeys, requireLocked, minimumPatchLevel, minimumVersionCode, revocation)")
            }
        }
        return errors.errors.count == before ? KeyAttestationPolicyEdit(reset: false, members: edits) : nil
    }

    /// The stored form: the policy's JSON, nil for the defaults.
    static func stored(_ policy: KeyAttestationPolicy) -> String? {
        policy == KeyAttestationPolicy() ? nil : json(policy).text
    }

    /// The policy of a stored text (written by ``stored(_:)``); the defaults for NULL.
    /// - Throws: what the JSON parser throws; `ValidationError` for a member that does not read.
    static func read(_ text: String?) throws -> KeyAttestationPolicy {
        var policy = KeyAttestationPolicy()
        guard let text else { return policy }
        var errors = FieldErrors()
        apply(try JSONParser.parse(Array(text.utf8)), at: "", to: &policy, errors: &errors)
        try errors.throwIfAny()
        return policy
    }

    /// The policy as the API shows it.
    public static func json(_ policy: KeyAttestationPolicy) -> JSON {
        .object([
            .init("enabled", .bool(policy.enabled)),
            .init("securityLevel", .string(policy.securityLevel.name)),
            .init("bootKeys", .array(policy.bootKeys.map { .string($0) })),
            .init("requireLocked", .bool(policy.requireLocked)),
            .init("minimumPatchLevel", policy.minimumPatchLevel.map { .string(KeyAttestationPolicy.patchLevelText($0)) } ?? .null),
            .init("minimumVersionCode", .object(policy.minimumVersionCode.sorted { $0.key < $1.key }.map { .init($0.key, .number(Double($0.value))) })),
            .init("revocation", .string(policy.revocation.rawValue)),
        ])
    }
}
