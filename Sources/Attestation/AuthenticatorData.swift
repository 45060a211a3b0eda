/// App Attest's authenticator data (WebAuthn §6.1 layout): rpIdHash (32), flags (1), signCount (4, big-endian),
/// then, in an attestation, the attested credential data: aaguid (16), credentialId length (2) and credentialId,
/// and the credential's COSE key (CBOR).
///
/// Tolerated, as real devices send them: bytes after the COSE key with the ED flag clear (iOS 27 appends a CBOR map
/// there), and the AT flag set on an assertion that carries no credential data (an old iOS bug). Both stay readable
/// in ``extensionBytes`` and ``flags``; the signature or the certificate covers them either way.
public struct AuthenticatorData: Sendable, Equatable {
    /// SHA-256 of the app id ("TEAMID.bundleId").
    public var rpIdHash: [UInt8]
    /// The flags byte (0x40 AT: attested credential data present, 0x80 ED: extensions present).
    public var flags: UInt8
    /// The signature counter: 0 in an attestation, then one more per assertion.
    public var signCount: UInt32
    /// The attested credential data, when the bytes carry it.
    public var credential: AttestedCredential?
    /// Whatever follows the fixed part (assertion) or the COSE key (attestation): extensions, with or without ED.
    public var extensionBytes: [UInt8]

    /// An attestation's credential: the aaguid (App Attest environment), the credential id (the key id) and the
    /// COSE key.
    public struct AttestedCredential: Sendable, Equatable {
        /// 16 bytes: "appattestdevelop" or "appattest" + 7 zero bytes.
        public var aaguid: [UInt8]
        /// The credential id: SHA-256 of the key's X9.62 point for a genuine key.
        public var credentialId: [UInt8]
        /// The credential public key as decoded CBOR (a COSE_Key map).
        public var publicKey: CBOR
    }

    /// The largest credential id WebAuthn allows (§5.8.3 `credentialId`, 1023 bytes).
    public static let maxCredentialIdLength = 1023

    /// Reads authenticator data. With `requireCredential` (an attestation), the attested credential data must be
    /// present; without it (an assertion), only the fixed 37 bytes are read and the rest kept in
    /// ``extensionBytes``.
    ///
    /// - Throws: ``AppAttestFormatError`` when the bytes are too short, the credential data is missing or runs past
    ///   the end, or the COSE key is not a CBOR map.
    public init(_ bytes: [UInt8], requireCredential: Bool) throws(AppAttestFormatError) {
        guard bytes.count >= 37 else { throw AppAttestFormatError("authData: \(bytes.count) bytes, fewer than 37") }
        rpIdHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        guard requireCredential else {
            credential = nil
            extensionBytes = Array(bytes[37...])
            return
        }
        guard flags & 0x40 != 0 else { throw AppAttestFormatError("authData: the AT flag is clear in an attestation") }
        guard bytes.count >= 37 + 18 else { throw AppAttestFormatError("authData: attested credential data is cut short") }
        let aaguid = Array(bytes[37..<53])
        let idLength = Int(bytes[53]) << 8 | Int(bytes[54])
        guard idLength <= Self.maxCredentialIdLength, bytes.count - 55 >= idLength else {
            throw AppAttestFormatError("authData: credentialId length \(idLength) runs past the data or the limit")
        }
        let credentialId = Array(bytes[55..<(55 + idLength)])
        let keyStart = 55 + idLength
        let publicKey: CBOR
        let keyEnd: Int
        do {
            (publicKey, keyEnd) = try CBORDecoder(limits: CBORLimits(maxDepth: 4, maxItems: 64, maxBytes: bytes.count))
                .decodePrefix(bytes, from: keyStart)
        } catch {
            throw AppAttestFormatError("authData: COSE key", error)
        }
        guard publicKey.mapPairs != nil else { throw AppAttestFormatError("authData: the COSE key is not a CBOR map") }
        credential = AttestedCredential(aaguid: aaguid, credentialId: credentialId, publicKey: publicKey)
        extensionBytes = Array(bytes[keyEnd...])
    }
}
