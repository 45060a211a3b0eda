/// An App Attest attestation object, read but not yet judged: the CBOR map
/// `{"fmt": text, "attStmt": {"x5c": [bytes…], "receipt": bytes}, "authData": bytes}`.
public struct AttestationObject: Sendable, Equatable {
    /// The attestation statement format: "apple-appattest" for App Attest.
    public var fmt: String
    /// The certificate chain as DER, leaf first (not parsed here: their number is bounded before that).
    public var x5c: [[UInt8]]
    /// The receipt for fraud-metric requests, when present.
    public var receipt: [UInt8]?
    /// The raw authenticator data (the nonce is computed over these exact bytes).
    public var authDataBytes: [UInt8]
    /// The authenticator data, read.
    public var authData: AuthenticatorData

    /// Bounds for attestation objects: shallow (the map, attStmt, x5c) and few items.
    public static let cborLimits = CBORLimits(maxDepth: 4, maxItems: 256, maxBytes: 1 << 20)

    /// Reads an attestation object.
    ///
    /// - Throws: ``AppAttestFormatError`` when the CBOR does not decode within ``cborLimits``, a field is missing or
    ///   of the wrong type, or the authenticator data cannot be read.
    public init(_ bytes: [UInt8]) throws(AppAttestFormatError) {
        let root: CBOR
        do {
            root = try CBORDecoder(limits: Self.cborLimits).decode(bytes)
        } catch {
            throw AppAttestFormatError("attestation object", error)
        }
        guard let fmt = root["fmt"]?.textString else { throw AppAttestFormatError("attestation object: no text fmt") }
        guard let statement = root["attStmt"], statement.mapPairs != nil else {
            throw AppAttestFormatError("attestation object: no attStmt map")
        }
        guard let authDataBytes = root["authData"]?.byteString else {
            throw AppAttestFormatError("attestation object: no authData byte string")
        }
        guard let chain = statement["x5c"]?.arrayElements else { throw AppAttestFormatError("attStmt: no x5c array") }
        var x5c: [[UInt8]] = []
        for certificate in chain {
            guard let der = certificate.byteString else { throw AppAttestFormatError("attStmt: an x5c element is not a byte string") }
            x5c.append(der)
        }
        let receipt: [UInt8]?
        switch statement["receipt"] {
        case nil: receipt = nil
        case .bytes(let bytes)?: receipt = bytes
        case _?: throw AppAttestFormatError("attStmt: receipt is not a byte string")
        }
        self.fmt = fmt
        self.x5c = x5c
        self.receipt = receipt
        self.authDataBytes = authDataBytes
        self.authData = try AuthenticatorData(authDataBytes, requireCredential: true)
    }
}
