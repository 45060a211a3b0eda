import Attestation
import Crypto
import Foundation

/// A stand-in for Apple's App Attest CA, for tests: a root and an intermediate made with the `openssl` tool, which
/// certify P-256 keys the way Apple does (the nonce extension 1.2.840.113635.100.8.2 on the leaf) and wrap them in
/// real attestation objects. Verify them with ``roots`` in place of Apple's.
public struct SyntheticAppAttest: Sendable {
    /// The root certificate, PEM (what `--app-attest-roots` would read).
    public let rootPEM: String
    /// The root as verifier roots.
    public let roots: AppAttestRoots
    let rootKeyPEM: String
    /// The CA that certifies the keys (PEM): the intermediate, or the root itself when made from one CA.
    public let intermediatePEM: String
    /// Its private key (PEM).
    public let intermediateKeyPEM: String
    /// The receipt signing that puts an `ATTEST` receipt in each attestation; without it the receipt is junk bytes.
    public let receipts: SyntheticAppleReceipts?

    /// What an attestation should get wrong, to test each check.
    public struct Tweaks: Sendable {
        /// Certify this nonce instead of SHA-256(authData ‖ clientDataHash).
        public var nonce: [UInt8]?
        /// Leave the nonce extension out of the leaf.
        public var omitNonce = false
        /// The nonce extension's whole value as hex DER, in place of `SEQUENCE { [1] { OCTET STRING nonce } }`.
        public var nonceExtensionDER: String?
        /// The credential id in authData instead of the key id.
        public var credentialId: [UInt8]?
        /// The app id hashed into rpIdHash instead of the attested one.
        public var rpId: String?
        /// The app id certified in the leaf's extension 1.2.840.113635.100.8.5 instead of the attested one; empty:
        /// no such extension.
        public var certifiedAppId: String?
        /// The authData counter (0 for a genuine attestation).
        public var signCount: UInt32 = 0
        /// The statement format.
        public var fmt = "apple-appattest"
        /// Bytes appended after the COSE key (iOS 27 appends a CBOR map there, with the ED flag clear).
        public var authDataExtension: [UInt8] = []
        /// Certificates (DER) appended to x5c after the intermediate.
        public var extraCertificates: [[UInt8]] = []

        /// No tweak: a genuine attestation.
        public init() {}
    }

    /// Makes a fresh root (P-384, like Apple's) and intermediate, valid ten years from now.
    ///
    /// - Throws: when `openssl` fails.
    public init() throws {
        let work = try WorkDirectory()
        defer { work.remove() }
        let tool = work.tool
        try tool.rootAndIntermediate(root: "/CN=Synthetic App Attestation Root CA/O=Gatehouse Tests",
                                     intermediate: "/CN=Synthetic App Attestation CA 1/O=Gatehouse Tests")
        rootPEM = try tool.read("root.pem")
        rootKeyPEM = try tool.read("root.key")
        intermediatePEM = try tool.read("ca.pem")
        intermediateKeyPEM = try tool.read("ca.key")
        roots = try AppAttestRoots(pem: rootPEM)
        receipts = try SyntheticAppleReceipts()
    }

    /// A CA from files: `certificatePEM` both certifies the keys and is the root a server trusts
    /// (`--app-attest-roots`), with its private key `keyPEM`; `receipts` signs the attestations' receipts.
    ///
    /// - Throws: when the certificate cannot be read as roots.
    public init(certificatePEM: String, keyPEM: String, receipts: SyntheticAppleReceipts? = nil) throws {
        self.receipts = receipts
        rootPEM = certificatePEM
        rootKeyPEM = keyPEM
        intermediatePEM = certificatePEM
        intermediateKeyPEM = keyPEM
        roots = try AppAttestRoots(pem: certificatePEM)
    }

    /// Generates a P-256 key and attests it for `appId` against `clientDataHash`, as a device of `environment`
    /// would, with `tweaks` applied.
    ///
    /// - Throws: when key generation or `openssl` fails.
    public func attest(appId: String, clientDataHash: [UInt8], environment: AttestationEnvironment = .production,
                       tweaks: Tweaks = Tweaks()) throws -> SyntheticKey {
        let key = try ECPrivateKey.generate()
        let keyId = SHA256.hash(key.publicKey.x962)
        let authData = Self.authData(rpId: tweaks.rpId ?? appId, signCount: tweaks.signCount, environment: environment,
                                     credentialId: tweaks.credentialId ?? keyId, key: key.publicKey)
            + tweaks.authDataExtension
        let nonce = tweaks.nonce ?? SHA256.hash(authData + clientDataHash)

        let work = try WorkDirectory()
        defer { work.remove() }
        let tool = work.tool
        try tool.write(key.pkcs8PEM, to: "leaf.key")
        try tool.write(intermediatePEM, to: "ca.pem")
        try tool.write(intermediateKeyPEM, to: "ca.key")
        var extensions = "keyUsage=critical,digitalSignature\n"
        if !tweaks.omitNonce {
            let value = tweaks.nonceExtensionDER ?? "3024A1220420" + Hex.encode(nonce, uppercase: true)
            extensions += "1.2.840.113635.100.8.2=DER:" + value + "\n"
        }
        let certified = tweaks.certifiedAppId ?? appId
        if !certified.isEmpty { extensions += "1.2.840.113635.100.8.5=DER:" + Hex.encode(Self.appIDExtension(certified), uppercase: true) + "\n" }
        try tool.write(extensions, to: "leaf.ext")
        try tool.run(["req", "-new", "-key", "@leaf.key", "-subj", "/CN=\(Hex.encode(keyId))/OU=AAA Certification/O=Gatehouse Tests",
                      "-out", "@leaf.csr"])
        try tool.run(["x509", "-req", "-in", "@leaf.csr", "-CA", "@ca.pem", "-CAkey", "@ca.key",
                      "-set_serial", String(UInt32.random(in: 3...UInt32.max)), "-days", "30", "-sha256",
                      "-extfile", "@leaf.ext", "-out", "@leaf.pem"])
        let leaf = try Certificate(pem: try tool.read("leaf.pem"))
        let intermediate = try Certificate(pem: intermediatePEM)
        var receipt = Array("synthetic receipt".utf8)
        if let receipts {
            let now = Int64(Date().timeIntervalSince1970)
            receipt = try receipts.sign(SyntheticAppleReceipts.fields(
                type: AppAttestReceipt.attestType, appId: appId, certificate: leaf.der, clientHash: clientDataHash,
                environment: environment == .production ? "production" : "sandbox", created: now, expires: now + 90 * 86_400))
        }

        let attestation = CBOREncoder.encode(.map([
            CBOR.Pair(.text("fmt"), .text(tweaks.fmt)),
            CBOR.Pair(.text("attStmt"), .map([
                CBOR.Pair(.text("x5c"), .array(([leaf.der, intermediate.der] + tweaks.extraCertificates).map { .bytes($0) })),
                CBOR.Pair(.text("receipt"), .bytes(receipt)),
            ])),
            CBOR.Pair(.text("authData"), .bytes(authData)),
        ]))
        return SyntheticKey(privateKey: key, keyId: keyId, appId: appId, environment: environment, attestation: attestation,
                            validAt: max(leaf.notBefore, intermediate.notBefore) + 60, notAfter: leaf.notAfter)
    }

    /// The value of Apple's app id extension: `SEQUENCE { [1204] EXPLICIT OCTET STRING appId }` (Apple's leaves carry
    /// other members beside it).
    static func appIDExtension(_ appId: String) -> [UInt8] {
        let octets = [0x04] + derLength(appId.utf8.count) + Array(appId.utf8)
        let member = [0xBF, 0x89, 0x34] + derLength(octets.count) + octets
        return [0x30] + derLength(member.count) + member
    }

    /// A DER length (X.690 §8.1.3): short form below 128, else one or two length bytes.
    static func derLength(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        if length < 0x100 { return [0x81, UInt8(length)] }
        return [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
    }

    /// authData of an attestation: rpIdHash, flags AT, counter, aaguid, credentialId and the COSE key (RFC 9053
    /// EC2: kty 2, alg −7 ES256, crv 1 P-256, x, y).
    static func authData(rpId: String, signCount: UInt32, environment: AttestationEnvironment, credentialId: [UInt8],
                         key: ECPublicKey) -> [UInt8] {
        let aaguid = environment == .development
            ? Array("appattestdevelop".utf8) : Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        let cose = CBOREncoder.encode(.map([
            CBOR.Pair(.unsigned(1), .unsigned(2)),
            CBOR.Pair(.unsigned(3), .negative(6)),
            CBOR.Pair(.negative(0), .unsigned(1)),
            CBOR.Pair(.negative(1), .bytes(Array(key.x962[1..<33]))),
            CBOR.Pair(.negative(2), .bytes(Array(key.x962[33..<65]))),
        ]))
        return SHA256.hash(rpId) + [0x40] + SyntheticKey.bigEndian(signCount) + aaguid
            + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xFF)] + credentialId + cose
    }
}

extension SyntheticAppAttest {
    /// The extension map iOS 27 appends to authenticator data: `apple_validation_category_01` as 4 little-endian
    /// bytes, `apple_bundle_version_01` as text (each left out when nil; empty bytes when both are).
    public static func extensions(validationCategory: UInt32?, bundleVersion: String?) -> [UInt8] {
        var pairs: [CBOR.Pair] = []
        if let bundleVersion { pairs.append(CBOR.Pair(.text(AppAttestExtensions.bundleVersionKey), .text(bundleVersion))) }
        if let validationCategory {
            let littleEndian = (0..<4).map { UInt8(truncatingIfNeeded: validationCategory >> (8 * $0)) }
            pairs.append(CBOR.Pair(.text(AppAttestExtensions.validationCategoryKey), .bytes(littleEndian)))
        }
        return pairs.isEmpty ? [] : CBOREncoder.encode(.map(pairs))
    }
}
