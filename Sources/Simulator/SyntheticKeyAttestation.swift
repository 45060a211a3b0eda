import Attestation
import Crypto
import Foundation

/// A stand-in for Google's key attestation CA, for tests and `gatehouse simulate`: a root and an intermediate made
/// with the `openssl` tool, which certify P-256 keys the way an Android phone's secure hardware does (the key
/// description, extension 1.3.6.1.4.1.11129.2.1.17, on the key's certificate only). A server trusts ``rootPEM`` with
/// `--key-attestation-roots` in place of Google's roots.
public struct SyntheticKeyAttestation: Sendable {
    /// The root certificate, PEM (`key-attestation-roots.pem`).
    public let rootPEM: String
    /// The CA that certifies the keys (PEM) and its private key (`key-attestation-ca.pem` and `.key`).
    public let intermediatePEM: String
    public let intermediateKeyPEM: String

    /// The phone a chain describes, and what it should get wrong.
    public struct Phone: Sendable {
        /// Where the key lives (`attestationSecurityLevel` and `keyMintSecurityLevel`).
        public var securityLevel: KeySecurityLevel = .trustedEnvironment
        public var bootState: VerifiedBootState = .verified
        /// The boot key's digest (32 bytes).
        public var bootKey: [UInt8] = Array(repeating: 0x5A, count: 32)
        public var locked = true
        /// `osPatchLevel`, YYYYMM.
        public var patchLevel = 202_611
        /// The app that asked for the key, its version code and signing certificates' SHA-256 digests.
        public var packageName = "com.example.app"
        public var versionCode = 42
        public var signatureDigests: [[UInt8]] = [Array(repeating: 0xAB, count: 32)]
        /// `origin`: 0 generated in the hardware, 2 imported.
        public var origin = 0
        /// The key description also on the intermediate (the known forgery's shape: `chainExtended`).
        public var extensionOnIntermediate = false
        /// Provisioned remotely: the key is certified by a fresh attestation key whose certificate (valid 30 days,
        /// certified by the intermediate) carries the provisioning extension, as Remote Key Provisioning chains do.
        public var remotelyProvisioned = false

        public init() {}
    }

    /// A chain made for a phone: the key (to sign with), the chain (the key's certificate first, DER), and the key id
    /// the server answers (base64url of SHA-256 of the key's SubjectPublicKeyInfo).
    public struct Attested: Sendable {
        public let privateKey: ECPrivateKey
        public let chain: [[UInt8]]
        public var keyID: String { Base64.encode(SHA256.hash(privateKey.publicKey.derSubjectPublicKeyInfo), alphabet: .urlSafe, padded: false) }
    }

    /// Makes a fresh root (P-384, like Google's EC root) and intermediate, valid ten years from now.
    /// - Throws: when `openssl` fails.
    public init() throws {
        let work = try WorkDirectory()
        defer { work.remove() }
        let tool = work.tool
        try tool.rootAndIntermediate(root: "/CN=Synthetic Key Attestation Root/O=Gatehouse Tests",
                                     intermediate: "/CN=Synthetic Key Attestation CA 1/O=Gatehouse Tests")
        rootPEM = try tool.read("root.pem")
        intermediatePEM = try tool.read("ca.pem")
        intermediateKeyPEM = try tool.read("ca.key")
    }

    /// The CA `gatehouse simulate make-ca` wrote: its root, intermediate and the intermediate's key (PEM).
    public init(rootPEM: String, intermediatePEM: String, intermediateKeyPEM: String) {
        self.rootPEM = rootPEM
        self.intermediatePEM = intermediatePEM
        self.intermediateKeyPEM = intermediateKeyPEM
    }

    /// Generates a P-256 key and certifies it with `challenge` as `phone` would, the chain ending at the intermediate
    /// (below the root, as Remote Key Provisioning chains do; a remotely provisioned phone's chain has its attestation
    /// key's certificate between the key and the intermediate).
    /// - Throws: when key generation or `openssl` fails.
    public func attest(challenge: [UInt8], phone: Phone = Phone()) throws -> Attested {
        let key = try ECPrivateKey.generate()
        let work = try WorkDirectory()
        defer { work.remove() }
        let tool = work.tool
        try tool.write(key.pkcs8PEM, to: "leaf.key")
        try tool.write(intermediatePEM, to: "ca.pem")
        try tool.write(intermediateKeyPEM, to: "ca.key")
        let description = Self.keyDescription(challenge: challenge, phone: phone)
        try tool.write("keyUsage=critical,digitalSignature\n\(KeyDescription.oid)=DER:\(Hex.encode(description, uppercase: true))\n", to: "leaf.ext")
        try tool.run(["req", "-new", "-key", "@leaf.key", "-subj", "/CN=Android Keystore Key", "-out", "@leaf.csr"])
        var provisioned: [[UInt8]] = []
        if phone.remotelyProvisioned {
            // The attestation key Remote Key Provisioning hands the phone: short-lived, certified by the intermediate,
            // its certificate carrying the provisioning information (a CBOR map, {1: 1}); it certifies the key.
            try tool.write("keyUsage=critical,keyCertSign\n\(KeyAttestationVerifier.provisioningOID)=DER:A10101\n", to: "rkp.ext")
            try tool.run(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "@rkp.key",
                          "-subj", "/CN=Synthetic Remotely Provisioned Attestation Key", "-out", "@rkp.csr"])
            try tool.run(["x509", "-req", "-in", "@rkp.csr", "-CA", "@ca.pem", "-CAkey", "@ca.key", "-set_serial", String(UInt32.random(in: 3...UInt32.max)),
                          "-days", "30", "-sha256", "-extfile", "@rkp.ext", "-out", "@rkp.pem"])
            provisioned = [try Certificate(pem: try tool.read("rkp.pem")).der]
        }
        let issuer = phone.remotelyProvisioned ? "rkp" : "ca"
        try tool.run(["x509", "-req", "-in", "@leaf.csr", "-CA", "@\(issuer).pem", "-CAkey", "@\(issuer).key",
                      "-set_serial", String(UInt32.random(in: 3...UInt32.max)), "-days", "30", "-sha256",
                      "-extfile", "@leaf.ext", "-out", "@leaf.pem"])
        var intermediate = try Certificate(pem: intermediatePEM).der
        if phone.extensionOnIntermediate {
            // Re-issue the intermediate with the extension too, under a root of its own (the chain then fails twice).
            try tool.write("basicConstraints=critical,CA:TRUE\n\(KeyDescription.oid)=DER:\(Hex.encode(description, uppercase: true))\n", to: "ca2.ext")
            try tool.run(["req", "-new", "-key", "@ca.key", "-subj", "/CN=Synthetic Key Attestation CA 1/O=Gatehouse Tests", "-out", "@ca2.csr"])
            try tool.run(["x509", "-req", "-in", "@ca2.csr", "-signkey", "@ca.key", "-days", "30", "-sha256", "-extfile", "@ca2.ext", "-out", "@ca2.pem"])
            intermediate = try Certificate(pem: try tool.read("ca2.pem")).der
        }
        return Attested(privateKey: key, chain: [try Certificate(pem: try tool.read("leaf.pem")).der] + provisioned + [intermediate])
    }

    /// The known forgery: a made-up key certificate (a fresh key, `phone`'s description with `challenge`) issued by a
    /// genuine attested key, which its owner can sign with; the chain is the made-up certificate followed by the
    /// genuine chain. Every signature in it verifies; only the attestation extension outside the first certificate
    /// gives it away (`chainExtended`).
    /// - Throws: when key generation or `openssl` fails.
    public func forge(issuedBy genuine: Attested, challenge: [UInt8], phone: Phone = Phone()) throws -> Attested {
        let key = try ECPrivateKey.generate()
        let work = try WorkDirectory()
        defer { work.remove() }
        let tool = work.tool
        try tool.write(key.pkcs8PEM, to: "forged.key")
        try tool.write(genuine.privateKey.pkcs8PEM, to: "genuine.key")
        guard FileManager.default.createFile(atPath: tool.directory + "/genuine.der", contents: Data(genuine.chain[0])) else {
            throw OpenSSLTool.Failure(description: "cannot write genuine.der")
        }
        let description = Self.keyDescription(challenge: challenge, phone: phone)
        try tool.write("keyUsage=critical,digitalSignature\n\(KeyDescription.oid)=DER:\(Hex.encode(description, uppercase: true))\n", to: "forged.ext")
        try tool.run(["req", "-new", "-key", "@forged.key", "-subj", "/CN=Android Keystore Key", "-out", "@forged.csr"])
        try tool.run(["x509", "-req", "-in", "@forged.csr", "-CA", "@genuine.der", "-CAform", "DER", "-CAkey", "@genuine.key",
                      "-set_serial", String(UInt32.random(in: 3...UInt32.max)), "-days", "30", "-sha256",
                      "-extfile", "@forged.ext", "-out", "@forged.pem"])
        return Attested(privateKey: key, chain: [try Certificate(pem: try tool.read("forged.pem")).der] + genuine.chain)
    }

    // MARK: - The key description, in DER

    /// `KeyDescription` (attestation version 300, KeyMint 300) for `phone` with `challenge`.
    static func keyDescription(challenge: [UInt8], phone: Phone) -> [UInt8] {
        let application = sequence(set(sequence(octets(Array(phone.packageName.utf8)) + integer(phone.versionCode)))
                                   + set(Array(phone.signatureDigests.sorted { $0.lexicographicallyPrecedes($1) }.map(octets).joined())))
        let software = sequence(explicit(709, octets(application)))
        let rootOfTrust = sequence(octets(phone.bootKey) + boolean(phone.locked) + enumerated(phone.bootState.rawValue)
                                   + octets(Array(repeating: 0x11, count: 32)))
        let hardware = sequence(explicit(1, set(integer(AuthorizationList.purposeSign))) + explicit(2, integer(AuthorizationList.algorithmEC))
                                + explicit(3, integer(256)) + explicit(10, integer(AuthorizationList.curveP256))
                                + explicit(702, integer(phone.origin)) + explicit(704, rootOfTrust) + explicit(705, integer(160_000))
                                + explicit(706, integer(phone.patchLevel)) + explicit(718, integer(phone.patchLevel * 100 + 5))
                                + explicit(719, integer(phone.patchLevel * 100 + 5)))
        return sequence(integer(300) + enumerated(phone.securityLevel.rawValue) + integer(300) + enumerated(phone.securityLevel.rawValue)
                        + octets(challenge) + octets([]) + software + hardware)
    }

    static func element(_ tag: [UInt8], _ contents: [UInt8]) -> [UInt8] { tag + SyntheticAppAttest.derLength(contents.count) + contents }
    static func sequence(_ contents: [UInt8]) -> [UInt8] { element([0x30], contents) }
    static func set(_ contents: [UInt8]) -> [UInt8] { element([0x31], contents) }
    static func octets(_ bytes: [UInt8]) -> [UInt8] { element([0x04], bytes) }
    static func boolean(_ value: Bool) -> [UInt8] { element([0x01], [value ? 0xFF : 0x00]) }
    static func integer(_ value: Int) -> [UInt8] { element([0x02], minimal(value)) }
    static func enumerated(_ value: Int) -> [UInt8] { element([0x0A], minimal(value)) }

    /// A non-negative value's minimal big-endian two's-complement bytes.
    static func minimal(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        } while rest > 0
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return bytes
    }

    /// `[tag] EXPLICIT`: a constructed context tag, in the high-tag-number form past 30 (X.690 §8.1.2.4).
    static func explicit(_ tag: Int, _ contents: [UInt8]) -> [UInt8] {
        guard tag > 30 else { return element([0xA0 | UInt8(tag)], contents) }
        var number: [UInt8] = [UInt8(tag & 0x7F)]
        var rest = tag >> 7
        while rest > 0 {
            number.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return element([0xBF] + number, contents)
    }
}
