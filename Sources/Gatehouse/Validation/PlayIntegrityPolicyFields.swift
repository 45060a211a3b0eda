import Attestation
import JSON

/// `playIntegrity.policy` read and written (docs/device-api.md "The policy"): each member checked by pointer; absent
/// members keep their value, `null` sets one back to today's rule. The same reader reads the stored policy.
public enum PlayIntegrityPolicyFields {
    /// Applies `value` (an object, or null for today's rules) to `policy`; every fault added to `errors` (and then
    /// nothing applied).
    public static func apply(_ value: JSON, at pointer: String, to policy: inout PlayIntegrityPolicy, errors: inout FieldErrors) {
        parse(value, at: pointer, errors: &errors)?.apply(to: &policy)
    }

    /// Reads `value` (an object, or null for today's rules) into the change it makes; nil with every fault added to
    /// `errors`. Read once, when a patch is read: applying it checks nothing again.
    public static func parse(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> PlayIntegrityPolicyEdit? {
        if value.isNull { return PlayIntegrityPolicyEdit(reset: true, members: []) }
        guard let members = value.members else {
            errors.add(pointer, "must be an object with the policy's members, or null for the default rules")
            return nil
        }
        let before = errors.errors.count
        var edits: [PlayIntegrityPolicyEdit.Member] = []
        let defaults = PlayIntegrityPolicy()
        for member in members {
            let at = Pointer.join(pointer, member.key)
            let value = member.value
            switch member.key {
            case "deviceIntegrity":
                if value.isNull { edits.append(.deviceIntegrity(defaults.deviceIntegrity)) }
                else if let level = value.string.flatMap(PlayIntegrityPolicy.DeviceIntegrity.init(rawValue:)) { edits.append(.deviceIntegrity(level)) }
                else { errors.add(at, "must be basic, device or strong (the weakest device verdict accepted)") }
            case "allowVirtual", "requireLicensed", "allowUnrecognizedVersion", "accountActivity", "rejectTestingResponses":
                let flag: Bool?
                if value.isNull { flag = nil } else if let bool = value.bool { flag = bool } else {
                    errors.add(at, "must be true or false, or null for the default")
                    continue
                }
                switch member.key {
                case "allowVirtual": edits.append(.allowVirtual(flag ?? defaults.allowVirtual))
                case "requireLicensed": edits.append(.requireLicensed(flag ?? defaults.requireLicensed))
                case "allowUnrecognizedVersion": edits.append(.allowUnrecognizedVersion(flag ?? defaults.allowUnrecognizedVersion))
                case "accountActivity": edits.append(.refuseUnusualAccountActivity(flag ?? defaults.refuseUnusualAccountActivity))
                default: edits.append(.rejectTestingResponses(flag))
                }
            case "minimumVersionCode":
                if let codes = VersionCodeFields.parse(value, at: at, errors: &errors) { edits.append(.minimumVersionCode(codes)) }
            case "minimumSdkVersion":
                if value.isNull { edits.append(.minimumSdkVersion(nil)) }
                else if let sdk = value.integer, (1...1000).contains(sdk) { edits.append(.minimumSdkVersion(Int(sdk))) }
                else { errors.add(at, "must be an Android SDK level such as 33 (Android 13), or null for none") }
            case "maximumActivityLevel":
                if value.isNull { edits.append(.maximumActivityLevel(defaults.maximumActivityLevel)) }
                else if let level = value.string.flatMap(PlayIntegrityPolicy.activityLevel) { edits.append(.maximumActivityLevel(level)) }
                else { errors.add(at, "must be LEVEL_1, LEVEL_2, LEVEL_3 or LEVEL_4 (the highest device activity accepted)") }
            case "playProtect":
                if value.isNull { edits.append(.playProtect(defaults.playProtect)) }
                else if let rank = value.string.flatMap(PlayIntegrityPolicy.playProtectOrder.firstIndex(of:)) { edits.append(.playProtect(rank)) }
                else { errors.add(at, "must be the worst Play Protect verdict accepted: \(PlayIntegrityPolicy.playProtectOrder.joined(separator: ", "))") }
            case "appsDetected":
                if value.isNull {
                    edits.append(.appsDetected(defaults.appsDetected))
                } else if let elements = value.array, elements.count <= PlayIntegrityPolicy.appsDetectedValues.count {
                    var refused = Set<String>()
                    for (i, element) in elements.enumerated() {
                        guard let name = element.string, PlayIntegrityPolicy.appsDetectedValues.contains(name), refused.insert(name).inserted else {
                            errors.add(Pointer.join(at, i), "must be one of \(PlayIntegrityPolicy.appsDetectedValues.joined(separator: ", ")), each once")
                            continue
                        }
                    }
                    edits.append(.appsDetected(refused))
                } else {
                    errors.add(at, "must be an array of the appsDetected values refused, or null for the default")
                }
            default:
                errors.add(at, "is not a member of the Play Integrity policy (expected deviceIntegrity, allowVirtual, requireLicensed, allowUnrecognizedVersion, minimumVersionCode, minimumSdkVersion, maximumActivityLevel, playProtect, appsDetected, rejectTestingResponses or accountActivity)")
            }
        }
        return errors.errors.count == before ? PlayIntegrityPolicyEdit(reset: false, members: edits) : nil
    }

    /// The policy as the API writes it; `rejectTestingResponses` as it applies in an environment of `kind`.
    public static func json(_ policy: PlayIntegrityPolicy, kind: EnvironmentKind) -> JSON {
        .object([
            .init("deviceIntegrity", .string(policy.deviceIntegrity.rawValue)),
            .init("allowVirtual", .bool(policy.allowVirtual)),
            .init("requireLicensed", .bool(policy.requireLicensed)),
            .init("allowUnrecognizedVersion", .bool(policy.allowUnrecognizedVersion)),
            .init("minimumVersionCode", .object(policy.minimumVersionCode.sorted { $0.key < $1.key }.map { .init($0.key, .int($0.value)) })),
            .init("minimumSdkVersion", policy.minimumSdkVersion.map { .int(Int64($0)) } ?? .null),
            .init("maximumActivityLevel", .string("LEVEL_\(policy.maximumActivityLevel)")),
            .init("playProtect", .string(PlayIntegrityPolicy.playProtectOrder[policy.playProtect])),
            .init("appsDetected", .array(PlayIntegrityPolicy.appsDetectedValues.filter(policy.appsDetected.contains).map { .string($0) })),
            .init("rejectTestingResponses", .bool(policy.rejectsTestingResponses(inProduction: kind == .production))),
            .init("accountActivity", .bool(policy.refuseUnusualAccountActivity)),
        ])
    }

    /// The stored form: what was set, `rejectTestingResponses` only when chosen (else it follows the kind).
    static func stored(_ policy: PlayIntegrityPolicy) -> String? {
        guard policy != PlayIntegrityPolicy() else { return nil }
        var json = json(policy, kind: .development)
        if policy.rejectTestingResponses == nil, var members = json.members {
            members.removeAll { $0.key == "rejectTestingResponses" }
            json = .object(members)
        }
        return json.text
    }

    /// The policy of a stored text (written by ``stored(_:)``); today's rules for NULL.
    static func read(_ text: String?) throws -> PlayIntegrityPolicy {
        var policy = PlayIntegrityPolicy()
        guard let text else { return policy }
        var errors = FieldErrors()
        apply(try JSONParser.parse(Array(text.utf8)), at: "", to: &policy, errors: &errors)
        try errors.throwIfAny()
        return policy
    }
}
