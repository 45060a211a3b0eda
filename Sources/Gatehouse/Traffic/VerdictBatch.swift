import JSON

/// Reads and validates an ingest batch `{"verdicts": [...]}` whole: every invalid item is reported by pointer and
/// nothing is stored unless all are valid.
public enum VerdictBatch {
    public static let maxVerdicts = 1000
    /// Verdicts older than this are refused (the raw retention window).
    public static let maxAge: Int64 = 8 * 86_400
    /// Verdicts further in the future than this are refused (clock skew).
    public static let maxSkew: Int64 = 300

    static let platforms = ["android", "ios"]
    static let providers = ["play-integrity", "app-attest"]
    static let statuses = ["verified", "forged", "rejected", "unavailable"]
    static let stringFields = ["packageName", "appRecognitionVerdict", "appLicensingVerdict"]

    public static func parse(_ json: JSON, now: Int64) throws(ValidationError) -> [TrafficVerdict] {
        guard json.members != nil else { throw ValidationError("", "the body must be an object {\"verdicts\": [...]}") }
        guard let items = json["verdicts"]?.array else { throw ValidationError("/verdicts", "is required: an array of 1 to \(maxVerdicts) verdicts") }
        guard !items.isEmpty, items.count <= maxVerdicts else {
            throw ValidationError("/verdicts", "must hold 1 to \(maxVerdicts) verdicts; got \(items.count) (split the batch)")
        }
        var errors = FieldErrors()
        var verdicts: [TrafficVerdict] = []
        verdicts.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            if let v = verdict(item, at: Pointer.join("/verdicts", i), now: now, errors: &errors) { verdicts.append(v) }
        }
        try errors.throwIfAny()
        return verdicts
    }

    static func verdict(_ item: JSON, at pointer: String, now: Int64, errors: inout FieldErrors) -> TrafficVerdict? {
        guard item.members != nil else {
            errors.add(pointer, "must be an object with at, platform, provider, status, reasons and observed")
            return nil
        }
        let before = errors.errors.count
        var at: Int64 = 0
        if let text = item["at"]?.string, let t = Timestamp.parse(text) {
            if t < now - maxAge { errors.add(pointer + "/at", "is more than 8 days old; such verdicts are past the retention window") }
            if t > now + maxSkew { errors.add(pointer + "/at", "is more than 5 minutes in the future; check the reporting server's clock") }
            at = t
        } else {
            errors.add(pointer + "/at", "must be an RFC 3339 time such as 2026-11-30T12:00:00Z")
        }
        let platform = oneOf(item["platform"], platforms, at: pointer + "/platform", errors: &errors)
        let provider = oneOf(item["provider"], providers, at: pointer + "/provider", errors: &errors)
        let status = oneOf(item["status"], statuses, at: pointer + "/status", errors: &errors)
        var reasons: [String] = []
        if let list = item["reasons"]?.array {
            if list.count > 20 { errors.add(pointer + "/reasons", "must hold at most 20 reasons") }
            for (j, r) in list.prefix(20).enumerated() {
                if let s = r.string, !s.isEmpty, s.utf8.count <= 100, !s.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                    if !reasons.contains(s) { reasons.append(s) }
                } else {
                    errors.add(Pointer.join(pointer + "/reasons", j), "must be a reason name (a non-empty string of at most 100 characters)")
                }
            }
        } else if let r = item["reasons"], !r.isNull {
            errors.add(pointer + "/reasons", "must be an array of reason names")
        }
        let observed = self.observed(item["observed"], at: pointer + "/observed", errors: &errors)
        guard errors.errors.count == before, let platform, let provider, let status else { return nil }
        return TrafficVerdict(at: at, platform: platform, provider: provider, status: status, reasons: reasons, observed: observed)
    }

    static func oneOf(_ value: JSON?, _ allowed: [String], at pointer: String, errors: inout FieldErrors) -> String? {
        guard let s = value?.string, allowed.contains(s) else {
            errors.add(pointer, "must be one of " + allowed.map { "\"\($0)\"" }.joined(separator: ", "))
            return nil
        }
        return s
    }

    static func observed(_ value: JSON?, at pointer: String, errors: inout FieldErrors) -> [String: String] {
        guard let value, !value.isNull else { return [:] }
        guard let members = value.members else {
            errors.add(pointer, "must be an object of what the device reported")
            return [:]
        }
        var out: [String: String] = [:]
        for member in members {
            let at = Pointer.join(pointer, member.key)
            switch member.key {
            case "certificateDigest":
                if let text = member.value.string, let bytes = CertificateDigest.parse(text) {
                    out["certificateDigest"] = CertificateDigest.format(bytes)
                } else {
                    errors.add(at, "must be \(CertificateDigest.expectation)")
                }
            case "appId":
                if let text = member.value.string, AppleAppID.isValid(text) { out["appId"] = text } else { errors.add(at, "must be \(AppleAppID.expectation)") }
            case "attestationEnvironment":
                if let text = member.value.string, ["production", "development"].contains(text) {
                    out["attestationEnvironment"] = text
                } else {
                    errors.add(at, "must be \"production\" or \"development\"")
                }
            case "deviceRecognitionVerdict":
                if let list = member.value.array, list.allSatisfy({ $0.string != nil }) {
                    out["deviceRecognitionVerdict"] = list.compactMap(\.string).joined(separator: ",")
                } else {
                    errors.add(at, "must be an array of strings")
                }
            case let key where stringFields.contains(key):
                if let text = member.value.string, !text.isEmpty, text.utf8.count <= 255 { out[key] = text } else { errors.add(at, "must be a string of at most 255 characters") }
            default:
                errors.add(at, "is not an observed field (expected packageName, certificateDigest, appId, attestationEnvironment, appRecognitionVerdict, deviceRecognitionVerdict, appLicensingVerdict)")
            }
        }
        return out
    }
}
