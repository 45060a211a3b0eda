/// Why an App Attest object (attestation, assertion, authenticator data) cannot be read: a message for logs and
/// tests that quotes no input bytes.
public struct AppAttestFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. "authData: 20 bytes, fewer than 37".
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }

    /// An error for CBOR that does not decode.
    init(_ what: String, _ error: CBORError) {
        self.init("\(what): \(error)")
    }
}
