/// App Attest's nonce certificate extension, OID 1.2.840.113635.100.8.2, whose value is the DER of
/// `SEQUENCE { [1] EXPLICIT OCTET STRING (SIZE(32)) }`.
enum NonceExtension {
    /// The extension's OID.
    static let oid = "1.2.840.113635.100.8.2"

    /// The 32-byte nonce of the extension value `der`, read strictly: exactly that structure, definite minimal
    /// lengths, nothing before, after or beside it; nil otherwise.
    static func nonce(_ der: [UInt8]) -> [UInt8]? {
        var outer = DERReader(der[...])
        guard let sequence = outer.read(tag: 0x30), outer.isAtEnd else { return nil }
        var inSequence = DERReader(sequence)
        guard let explicit = inSequence.read(tag: 0xA1), inSequence.isAtEnd else { return nil }
        var inExplicit = DERReader(explicit)
        guard let octets = inExplicit.read(tag: 0x04), inExplicit.isAtEnd, octets.count == 32 else { return nil }
        return Array(octets)
    }
}
