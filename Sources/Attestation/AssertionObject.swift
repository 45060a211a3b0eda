/// An App Attest assertion, read but not yet judged: the CBOR map `{"signature": bytes, "authenticatorData": bytes}`.
public struct AssertionObject: Sendable, Equatable {
    /// The DER ECDSA signature over SHA-256(authenticatorData ‖ clientDataHash).
    public var signature: [UInt8]
    /// The raw authenticator data (signed as is).
    public var authenticatorDataBytes: [UInt8]
    /// The authenticator data, read (no credential data: an assertion's AT flag may be set without it).
    public var authenticatorData: AuthenticatorData

    /// Bounds for assertion objects: one flat map.
    public static let cborLimits = CBORLimits(maxDepth: 2, maxItems: 16, maxBytes: 64 * 1024)

    /// Reads an assertion.
    ///
    /// - Throws: ``AppAttestFormatError`` when the CBOR does not decode within ``cborLimits``, a field is missing or
    ///   of the wrong type, or the authenticator data is shorter than 37 bytes.
    public init(_ bytes: [UInt8]) throws(AppAttestFormatError) {
        let root: CBOR
        do {
            root = try CBORDecoder(limits: Self.cborLimits).decode(bytes)
        } catch {
            throw AppAttestFormatError("assertion", error)
        }
        guard let signature = root["signature"]?.byteString else {
            throw AppAttestFormatError("assertion: no signature byte string")
        }
        guard let authenticatorData = root["authenticatorData"]?.byteString else {
            throw AppAttestFormatError("assertion: no authenticatorData byte string")
        }
        self.signature = signature
        self.authenticatorDataBytes = authenticatorData
        self.authenticatorData = try AuthenticatorData(authenticatorData, requireCredential: false)
    }
}
