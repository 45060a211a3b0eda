/// Why a Play Integrity token could not be opened: the stage that failed (decryption → forged `decryptionFailed`,
/// signature → forged `signatureInvalid`) and a short description of what was wrong.
///
/// The detail names structure only ("JWE alg is not A256KW", "signature does not verify"); it never quotes a key,
/// the plaintext or the payload, so it is safe to log.
public struct PlayIntegrityDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which layer of the token failed.
    public enum Stage: String, Sendable {
        /// The JWE: shape, header, algorithms, sizes, key unwrap or AES-GCM authentication.
        case decryption
        /// The JWS inside: shape, header, algorithm, sizes, signature, or a payload that is not a JSON object.
        case signature
    }

    /// Which layer failed.
    public let stage: Stage
    /// What was wrong, without secrets.
    public let detail: String

    /// An error at `stage` saying `detail`.
    public init(_ stage: Stage, _ detail: String) {
        self.stage = stage
        self.detail = detail
    }

    /// The verdict reason this failure gives: `decryptionFailed` or `signatureInvalid`, both forged.
    public var reason: Reason { stage == .decryption ? .decryptionFailed : .signatureInvalid }

    /// "decryptionFailed: detail".
    public var description: String { "\(reason.code): \(detail)" }
}
