import Attestation
import JSON

/// What a registration or an assertion showed beyond its verdict (docs/device-api.md "App Attest in depth"): the launch
/// validation category and bundle version it carried (iOS 27 and later), the key's risk metric, and, on
/// registration, whether its receipt was accepted.
public struct AppAttestObservation: Sendable, Equatable {
    public var validationCategory: ValidationCategory?
    public var bundleVersion: String?
    /// Apple's fraud risk metric of the key, when a refresh brought one, and when.
    public var riskMetric: Int?
    public var riskMetricAt: Int64?
    /// The attestation's receipt checked (registration only): nil when it was not (a forged attestation).
    public var receipt: AppAttestReceiptCheck?

    public init(extensions: AppAttestExtensions? = nil, riskMetric: Int? = nil, riskMetricAt: Int64? = nil, receipt: AppAttestReceiptCheck? = nil) {
        validationCategory = extensions?.validationCategory
        bundleVersion = extensions?.bundleVersion
        self.riskMetric = riskMetric
        self.riskMetricAt = riskMetricAt
        self.receipt = receipt
    }

    /// The observed field of a launch: `<app id>\t<category or none>\t<bundle version or none>`.
    static let launchField = "launch"

    /// The launch value of `appID` with this category and version; nil when the object carried neither.
    func launch(appID: String?) -> String? {
        guard let appID, validationCategory != nil || bundleVersion != nil else { return nil }
        return [appID, validationCategory?.label ?? "none", bundleVersion ?? "none"].joined(separator: "\t")
    }

    /// The observed values recorded into traffic (the checklist and the Traffic tab read them).
    var traffic: [String: String] {
        var values: [String: String] = [:]
        if let validationCategory { values["validationCategory"] = validationCategory.label }
        if let bundleVersion { values["bundleVersion"] = bundleVersion }
        if let riskMetric { values["riskMetric"] = String(riskMetric) }
        if let receipt {
            values["receipt"] = receipt.isValid ? "valid" : "invalid"
            if !receipt.isValid { values["receiptReasons"] = receipt.reasons.map(\.rawValue).joined(separator: ",") }
        }
        return values
    }

    /// The verdict's `observed` member (nil when nothing was observed).
    public var json: JSON? {
        var members: [JSON.Member] = []
        if let validationCategory {
            members.append(.init("validationCategory", validationCategory.name.map(JSON.string) ?? .int(Int64(validationCategory.value))))
        }
        if let bundleVersion { members.append(.init("bundleVersion", .string(bundleVersion))) }
        if let riskMetric { members.append(.init("riskMetric", .int(Int64(riskMetric)))) }
        if let riskMetricAt { members.append(.init("riskMetricAt", .string(Timestamp.format(riskMetricAt)))) }
        if let receipt {
            members.append(.init("receipt", .string(receipt.isValid ? "valid" : "invalid")))
            if !receipt.isValid { members.append(.init("receiptReasons", .array(receipt.reasons.map { .string($0.rawValue) }))) }
        }
        return members.isEmpty ? nil : .object(members)
    }
}
