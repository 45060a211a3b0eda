/// Why a certificate could not be parsed or a chain did not verify.
public struct CertificateError: Error, Sendable, CustomStringConvertible {
    /// The broad cause, for callers that react differently (an expired chain versus a forged one).
    public enum Reason: String, Sendable {
        /// The bytes or PEM text are not an X.509 certificate.
        case malformed
        /// A certificate's notAfter is before the verification time.
        case expired
        /// A certificate's notBefore is after the verification time.
        case notYetValid
        /// The chain does not lead to the given root.
        case untrusted
        /// A signature in the chain does not verify.
        case badSignature
        /// Any other verification failure (bad CA flags, path length, unsupported critical extension…).
        case invalid
    }

    /// The broad cause.
    public let reason: Reason
    /// OpenSSL's explanation, with the depth in the chain (0 = leaf) where it applies.
    public let message: String

    /// Creates an error.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// "reason: message".
    public var description: String { "\(reason.rawValue): \(message)" }
}
