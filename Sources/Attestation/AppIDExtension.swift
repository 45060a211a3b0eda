/// The app id Apple certifies on an App Attest leaf: extension OID 1.2.840.113635.100.8.5, whose value is a DER
/// `SEQUENCE` of context-tagged members, among them `[1204] EXPLICIT OCTET STRING` holding the UTF-8
/// `TEAMID.bundleId` (the others, `[4]` and `[1200]`–`[1203]`, are Apple's own and skipped). Every real leaf in the
/// public vectors carries it.
enum AppIDExtension {
    /// The extension's OID.
    static let oid = "1.2.840.113635.100.8.5"
    /// The tag number of the app id member.
    static let appIDTag = 1204
    /// The longest app id read, in bytes.
    static let maxLength = 512

    /// The app id of the extension value `der`: the one `[1204]` member, an OCTET STRING of UTF-8; nil when the
    /// structure is anything else (trailing bytes, a repeated or missing member, text that is not UTF-8).
    static func appID(_ der: [UInt8]) -> String? {
        var outer = DERReader(der[...])
        guard let sequence = outer.read(tag: 0x30), outer.isAtEnd else { return nil }
        var members = DERReader(sequence)
        var found: ArraySlice<UInt8>?
        while !members.isAtEnd {
            guard let member = members.readElement() else { return nil }
            guard member.classAndForm == 0xA0, member.number == appIDTag else { continue }
            guard found == nil else { return nil }
            var explicit = DERReader(member.contents)
            guard let octets = explicit.read(tag: 0x04), explicit.isAtEnd, !octets.isEmpty, octets.count <= maxLength else { return nil }
            found = octets
        }
        guard let found, let text = String(validating: found, as: UTF8.self) else { return nil }
        return text
    }
}
