/// What an environment asks of App Attest beyond Apple's checks (docs/device-api.md "App Attest in depth"): the launch
/// validation categories it accepts, whether one must be present, the lowest bundle version, and the risk metric
/// above which an assertion is rejected. The default asks nothing more (observe only).
public struct AppAttestPolicy: Sendable, Equatable {
    /// The categories accepted; nil accepts any (and none).
    public var validationCategories: Set<ValidationCategory>?
    /// Whether an object without a category (iOS 26 and earlier) is rejected `validationCategoryMissing`.
    public var requireValidationCategory: Bool
    /// The lowest bundle version accepted (objects without one are not held to it).
    public var minimumBundleVersion: String?
    /// An assertion by a key whose last risk metric is above this is rejected `riskMetricHigh`; nil observes only.
    public var riskMetricAbove: Int?

    /// A policy; the defaults ask nothing.
    public init(validationCategories: Set<ValidationCategory>? = nil, requireValidationCategory: Bool = false,
                minimumBundleVersion: String? = nil, riskMetricAbove: Int? = nil) {
        self.validationCategories = validationCategories
        self.requireValidationCategory = requireValidationCategory
        self.minimumBundleVersion = minimumBundleVersion
        self.riskMetricAbove = riskMetricAbove
    }

    /// The rejected reasons for an object carrying `extensions` (nil: none at all), in the contract's order.
    public func reasons(for extensions: AppAttestExtensions?) -> [Reason] {
        var reasons: [Reason] = []
        if let category = extensions?.validationCategory {
            if let accepted = validationCategories, !accepted.contains(category) { reasons.append(.validationCategory(category)) }
        } else if requireValidationCategory {
            reasons.append(.validationCategoryMissing)
        }
        if let minimum = minimumBundleVersion, let version = extensions?.bundleVersion, BundleVersion.isBelow(version, minimum: minimum) {
            reasons.append(.bundleVersion(version))
        }
        return reasons
    }

    /// `riskMetricHigh` when `riskMetric` is above the policy's bound.
    public func reasons(forRiskMetric riskMetric: Int?) -> [Reason] {
        guard let bound = riskMetricAbove, let riskMetric, riskMetric > bound else { return [] }
        return [.riskMetricHigh]
    }
}
