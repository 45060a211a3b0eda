/// A value devices reported alongside a reason, and how many verdicts reported it.
public struct ObservedValue: Sendable, Equatable, Hashable {
    /// The rolled-up field that counts a certificate digest only from verdicts in which Google recognized the binary
    /// (`appRecognitionVerdict` `PLAY_RECOGNIZED`): what Play distributes, so the upload-key mistake shows here and
    /// a copy re-signed by someone else (`UNRECOGNIZED_VERSION`) does not.
    public static let recognizedCertificateDigest = "recognizedCertificateDigest"

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
