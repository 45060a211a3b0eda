/// The key description Android's hardware puts in an attested key's certificate (the attestation extension, OID
/// 1.3.6.1.4.1.11129.2.1.17): what the key is, which app asked for it and how the device booted
/// (docs/device-api.md "Android Key Attestation"). Read strictly: DER with minimal lengths and integers, every field the
/// contract names in its type, the authorization lists' tags at most once each and in ascending order; tags the
/// contract does not name are kept by number (``AuthorizationList/unknownTags``), not judged.
public struct KeyDescription: Sendable, Equatable {
    /// The attestation extension's OID.
    public static let oid = "1.3.6.1.4.1.11129.2.1.17"
    /// The most bytes of an extension value read (a real one is under 2 KiB).
    public static let maxBytes = 8 * 1024

    public var attestationVersion: Int
    public var attestationSecurityLevel: KeySecurityLevel
    public var keyMintVersion: Int
    public var keyMintSecurityLevel: KeySecurityLevel
    public var attestationChallenge: [UInt8]
    public var uniqueID: [UInt8]
    public var softwareEnforced: AuthorizationList
    public var hardwareEnforced: AuthorizationList

    /// Reads the extension value `der`.
    /// - Throws: ``KeyDescriptionError`` naming what is malformed.
    public init(der: [UInt8]) throws(KeyDescriptionError) {
        guard der.count <= Self.maxBytes else { throw .malformed("the key description is over \(Self.maxBytes) bytes") }
        var outer = DERReader(der[...])
        guard let sequence = outer.read(tag: 0x30), outer.isAtEnd else { throw .malformed("the key description is not one SEQUENCE") }
        var fields = DERReader(sequence)
        attestationVersion = try KeyDER.integer(&fields, "attestationVersion")
        attestationSecurityLevel = try KeySecurityLevel.read(&fields, "attestationSecurityLevel")
        keyMintVersion = try KeyDER.integer(&fields, "keyMintVersion")
        keyMintSecurityLevel = try KeySecurityLevel.read(&fields, "keyMintSecurityLevel")
        attestationChallenge = try KeyDER.octets(&fields, "attestationChallenge")
        uniqueID = try KeyDER.octets(&fields, "uniqueId")
        softwareEnforced = try AuthorizationList(&fields, "softwareEnforced")
        hardwareEnforced = try AuthorizationList(&fields, "hardwareEnforced")
        guard fields.isAtEnd else { throw .malformed("the key description has fields after hardwareEnforced") }
    }
}

/// Where a key lives, as the key description says it (`SecurityLevel ::= ENUMERATED`).
public enum KeySecurityLevel: Int, Sendable, Comparable {
    case software = 0
    case trustedEnvironment = 1
    case strongBox = 2

    /// As `observed` and the policy name it: `software`, `tee`, `strongbox`.
    public var name: String {
        switch self {
        case .software: "software"
        case .trustedEnvironment: "tee"
        case .strongBox: "strongbox"
        }
    }

    /// The level named `name` (``name``).
    public init?(name: String) {
        switch name {
        case "software": self = .software
        case "tee": self = .trustedEnvironment
        case "strongbox": self = .strongBox
        default: return nil
        }
    }

    public static func < (a: KeySecurityLevel, b: KeySecurityLevel) -> Bool { a.rawValue < b.rawValue }

    static func read(_ reader: inout DERReader, _ field: String) throws(KeyDescriptionError) -> KeySecurityLevel {
        let value = try KeyDER.enumerated(&reader, field)
        guard let level = KeySecurityLevel(rawValue: value) else { throw .malformed("\(field) is \(value), not a security level") }
        return level
    }
}

/// A malformed key description, said with the field.
public enum KeyDescriptionError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)

    public var description: String {
        switch self {
        case .malformed(let what): what
        }
    }
}

/// The DER reads of the key description: universal INTEGER, ENUMERATED, BOOLEAN, OCTET STRING, minimal and bounded.
enum KeyDER {
    /// A non-negative INTEGER that fits 62 bits (versions, patch levels, version codes), minimal (X.690 §8.3.2).
    static func integer(_ reader: inout DERReader, _ field: String, tag: UInt8 = 0x02) throws(KeyDescriptionError) -> Int {
        guard let contents = reader.read(tag: tag) else { throw .malformed("\(field) is not an \(tag == 0x02 ? "INTEGER" : "ENUMERATED")") }
        return try value(contents, field)
    }

    static func enumerated(_ reader: inout DERReader, _ field: String) throws(KeyDescriptionError) -> Int {
        try integer(&reader, field, tag: 0x0A)
    }

    /// The value of an INTEGER's contents.
    static func value(_ contents: ArraySlice<UInt8>, _ field: String) throws(KeyDescriptionError) -> Int {
        guard let first = contents.first else { throw .malformed("\(field) is an empty INTEGER") }
        guard first & 0x80 == 0 else { throw .malformed("\(field) is negative") }
        if contents.count > 1, first == 0, contents[contents.startIndex + 1] & 0x80 == 0 {
            throw .malformed("\(field) is not minimally encoded")
        }
        let significant = contents.drop { $0 == 0 }
        guard significant.count <= 7 || (significant.count == 8 && (significant.first ?? 0) < 0x40) else {
            throw .malformed("\(field) is too large")
        }
        return significant.reduce(0) { $0 << 8 | Int($1) }
    }

    static func octets(_ reader: inout DERReader, _ field: String) throws(KeyDescriptionError) -> [UInt8] {
        guard let contents = reader.read(tag: 0x04) else { throw .malformed("\(field) is not an OCTET STRING") }
        return Array(contents)
    }

    static func boolean(_ reader: inout DERReader, _ field: String) throws(KeyDescriptionError) -> Bool {
        guard let contents = reader.read(tag: 0x01), contents.count == 1 else { throw .malformed("\(field) is not a BOOLEAN") }
        switch contents.first {
        case 0x00: return false
        case 0xFF: return true
        default: throw .malformed("\(field) is a BOOLEAN that is neither 00 nor FF")
        }
    }
}
