/// A Play Integrity key that cannot be one, naming the field (`decryptionKey` or `verificationKey`) so the
/// management API can point at it. The message never quotes the value.
public struct PlayIntegrityKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The two key fields of `playIntegrity.local`.
    public enum Field: String, Sendable {
        case decryptionKey, verificationKey
    }

    /// Which key is wrong.
    public let field: Field
    /// What was expected.
    public let message: String

    /// "field: message".
    public var description: String { "\(field.rawValue): \(message)" }
}
