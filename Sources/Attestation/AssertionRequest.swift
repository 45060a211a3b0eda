/// An assertion to judge: what the device sent, and SHA-256 of its client data.
public struct AssertionRequest: Sendable {
    /// The CBOR map `{signature, authenticatorData}`, as decoded from base64.
    public var assertion: [UInt8]
    /// SHA-256(clientData) (any length is accepted, as for attestations).
    public var clientDataHash: [UInt8]

    /// A request for `assertion` over `clientDataHash`.
    public init(assertion: [UInt8], clientDataHash: [UInt8]) {
        self.assertion = assertion
        self.clientDataHash = clientDataHash
    }
}
