/// A value devices reported alongside a reason, and how many verdicts reported it.
public struct ObservedValue: Sendable, Equatable, Hashable {
    /// Which value: `"packageName"`, `"certificateDigest"`, `"appId"`, `"attestationEnvironment"`,
    /// `"appRecognitionVerdict"` or `"appLicensingVerdict"`.
    public var field: String
    /// The value as reported (certificate digests as uppercase colon hex).
    public var value: String
    /// How many verdicts reported it.
    public var count: Int

    /// Creates an observed value.
    public init(field: String, value: String, count: Int) {
        self.field = field
        self.value = value
        self.count = count
    }
}
