/// One of a key description's two authorization lists (software-enforced, hardware-enforced): the key's properties,
/// each under an explicit context tag, at most once each and in ascending order. The fields the contract judges are
/// read by type; any other tag is kept by number in ``unknownTags``.
public struct AuthorizationList: Sendable, Equatable {
    /// `[1] purpose`: 2 is SIGN.
    public var purposes: [Int]?
    /// `[2] algorithm`: 3 is EC.
    public var algorithm: Int?
    /// `[3] keySize`.
    public var keySize: Int?
    /// `[10] ecCurve`: 1 is P-256.
    public var ecCurve: Int?
    /// `[702] origin`: 0 is GENERATED (made in the hardware), 2 IMPORTED.
    public var origin: Int?
    /// `[704] rootOfTrust`.
    public var rootOfTrust: RootOfTrust?
    /// `[705] osVersion` (e.g. 150000 for Android 15).
    public var osVersion: Int?
    /// `[706] osPatchLevel`, YYYYMM.
    public var osPatchLevel: Int?
    /// `[709] attestationApplicationId`: the app that asked for the key.
    public var attestationApplicationID: AttestationApplicationID?
    /// `[718] vendorPatchLevel`, YYYYMMDD (or YYYYMM).
    public var vendorPatchLevel: Int?
    /// `[719] bootPatchLevel`, YYYYMMDD (or YYYYMM).
    public var bootPatchLevel: Int?
    /// The tags present that the contract does not name, in order.
    public var unknownTags: [Int] = []

    /// Purposes, algorithms and curves of KeyMint.
    public static let purposeSign = 2, algorithmEC = 3, curveP256 = 1, originGenerated = 0

    public init() {}

    /// Reads the list named `field` (a SEQUENCE) from `reader`.
    init(_ reader: inout DERReader, _ field: String) throws(KeyDescriptionError) {
        guard let sequence = reader.read(tag: 0x30) else { throw .malformed("\(field) is not a SEQUENCE") }
        var entries = DERReader(sequence)
        var last = 0
        while !entries.isAtEnd {
            guard let (classAndForm, tag, contents) = entries.readElement() else { throw .malformed("\(field) holds a malformed element") }
            guard classAndForm == 0xA0 else { throw .malformed("\(field) holds an element that is not an explicit context tag") }
            guard tag > last else {
                throw .malformed(tag == last ? "\(field) repeats tag \(tag)" : "\(field) has tag \(tag) after tag \(last)")
            }
            last = tag
            var inner = DERReader(contents)
            let name = "\(field)/\(tag)"
            switch tag {
            case 1: purposes = try Self.integerSet(&inner, name)
            case 2: algorithm = try KeyDER.integer(&inner, name)
            case 3: keySize = try KeyDER.integer(&inner, name)
            case 10: ecCurve = try KeyDER.integer(&inner, name)
            case 702: origin = try KeyDER.integer(&inner, name)
            case 704: rootOfTrust = try RootOfTrust(&inner, name)
            case 705: osVersion = try KeyDER.integer(&inner, name)
            case 706: osPatchLevel = try KeyDER.integer(&inner, name)
            case 709:
                let octets = try KeyDER.octets(&inner, name)
                attestationApplicationID = try AttestationApplicationID(der: octets, name)
            case 718: vendorPatchLevel = try KeyDER.integer(&inner, name)
            case 719: bootPatchLevel = try KeyDER.integer(&inner, name)
            default:
                unknownTags.append(tag)
                continue
            }
            guard inner.isAtEnd else { throw .malformed("\(name) has bytes after its value") }
        }
    }

    /// A SET OF INTEGER (DER orders a SET OF by encoding; the values are kept as they come).
    static func integerSet(_ reader: inout DERReader, _ field: String) throws(KeyDescriptionError) -> [Int] {
        guard let set = reader.read(tag: 0x31) else { throw .malformed("\(field) is not a SET") }
        var members = DERReader(set)
        var values: [Int] = []
        while !members.isAtEnd {
            values.append(try KeyDER.integer(&members, field))
            guard values.count <= 16 else { throw .malformed("\(field) has more than 16 members") }
        }
        return values
    }
}

/// How the device booted (`RootOfTrust ::= SEQUENCE { verifiedBootKey, deviceLocked, verifiedBootState,
/// verifiedBootHash }`; the hash from attestation version 3).
public struct RootOfTrust: Sendable, Equatable {
    /// The boot key's digest: the key that signed the OS (Google's or the OS maker's; all zeros on some unlocked devices).
    public var verifiedBootKey: [UInt8]
    public var deviceLocked: Bool
    public var verifiedBootState: VerifiedBootState
    public var verifiedBootHash: [UInt8]?

    init(_ reader: inout DERReader, _ field: String) throws(KeyDescriptionError) {
        guard let sequence = reader.read(tag: 0x30) else { throw .malformed("\(field) (rootOfTrust) is not a SEQUENCE") }
        var fields = DERReader(sequence)
        verifiedBootKey = try KeyDER.octets(&fields, "\(field)/verifiedBootKey")
        deviceLocked = try KeyDER.boolean(&fields, "\(field)/deviceLocked")
        let state = try KeyDER.enumerated(&fields, "\(field)/verifiedBootState")
        guard let bootState = VerifiedBootState(rawValue: state) else { throw .malformed("\(field)/verifiedBootState is \(state)") }
        verifiedBootState = bootState
        verifiedBootHash = fields.isAtEnd ? nil : try KeyDER.octets(&fields, "\(field)/verifiedBootHash")
        guard fields.isAtEnd else { throw .malformed("\(field) (rootOfTrust) has fields after verifiedBootHash") }
    }
}

/// The verified boot state (`VerifiedBootState ::= ENUMERATED`).
public enum VerifiedBootState: Int, Sendable {
    /// Booted an OS signed by the key built into the device (Google's, or the maker's).
    case verified = 0
    /// Booted an OS signed by a key the owner enrolled (GrapheneOS on a Pixel): `verifiedBootKey` says which.
    case selfSigned = 1
    /// The bootloader is unlocked and anything may have booted.
    case unverified = 2
    case failed = 3

    /// As `observed` names it.
    public var name: String {
        switch self {
        case .verified: "verified"
        case .selfSigned: "selfSigned"
        case .unverified: "unverified"
        case .failed: "failed"
        }
    }
}

/// The app that asked for the key: its packages (several share a uid) with their version codes, and the SHA-256
/// digests of its signing certificates (`AttestationApplicationId ::= SEQUENCE { packageInfos SET OF
/// AttestationPackageInfo, signatureDigests SET OF OCTET STRING }`).
public struct AttestationApplicationID: Sendable, Equatable {
    public struct Package: Sendable, Equatable {
        public var name: String
        public var version: Int
    }

    public var packages: [Package]
    public var signatureDigests: [[UInt8]]

    init(der: [UInt8], _ field: String) throws(KeyDescriptionError) {
        var outer = DERReader(der[...])
        guard let sequence = outer.read(tag: 0x30), outer.isAtEnd else { throw .malformed("\(field) (attestationApplicationId) is not one SEQUENCE") }
        var fields = DERReader(sequence)
        guard let infos = fields.read(tag: 0x31) else { throw .malformed("\(field)/packageInfos is not a SET") }
        var infoReader = DERReader(infos)
        packages = []
        while !infoReader.isAtEnd {
            guard let info = infoReader.read(tag: 0x30) else { throw .malformed("\(field)/packageInfos holds a member that is not a SEQUENCE") }
            var infoFields = DERReader(info)
            let nameBytes = try KeyDER.octets(&infoFields, "\(field)/packageInfos/name")
            let version = try KeyDER.integer(&infoFields, "\(field)/packageInfos/version")
            guard infoFields.isAtEnd else { throw .malformed("\(field)/packageInfos holds a member with extra fields") }
            guard let name = String(validating: nameBytes, as: UTF8.self) else { throw .malformed("\(field)/packageInfos/name is not UTF-8") }
            packages.append(Package(name: name, version: version))
            guard packages.count <= 32 else { throw .malformed("\(field)/packageInfos has more than 32 members") }
        }
        guard let digests = fields.read(tag: 0x31) else { throw .malformed("\(field)/signatureDigests is not a SET") }
        var digestReader = DERReader(digests)
        signatureDigests = []
        while !digestReader.isAtEnd {
            signatureDigests.append(try KeyDER.octets(&digestReader, "\(field)/signatureDigests"))
            guard signatureDigests.count <= 32 else { throw .malformed("\(field)/signatureDigests has more than 32 members") }
        }
        guard fields.isAtEnd else { throw .malformed("\(field) (attestationApplicationId) has fields after signatureDigests") }
    }
}
