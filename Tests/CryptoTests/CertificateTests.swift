import Crypto
import Foundation
import Testing
import TestSupport

/// A root → intermediate → leaf chain made with the openssl tool in a temporary directory.
struct TestPKI {
    let directory: TemporaryDirectory
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate
    /// A different self-signed root with the same subject as `root`.
    let impostorRoot: Certificate
    /// The App Attest nonce extension's value put into the leaf: SEQUENCE { [1] { OCTET STRING (32 bytes) } }.
    let nonceExtension: [UInt8]
    /// When the chain was made (Unix seconds), taken just before the first certificate.
    let createdAt: Int64
    /// A time at which every certificate is valid: a minute after the leaf (made last) starts.
    var validTime: Int64 { leaf.notBefore + 60 }

    static let config = """
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = unused
        [root_ext]
        basicConstraints = critical,CA:TRUE
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        [intermediate_ext]
        basicConstraints = critical,CA:TRUE,pathlen:0
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid
        [leaf_ext]
        basicConstraints = critical,CA:FALSE
        keyUsage = critical,digitalSignature
        authorityKeyIdentifier = keyid
        1.2.840.113635.100.8.2 = DER:%NONCE%

        """

    init() throws {
        directory = try TemporaryDirectory()
        let nonce = try SecureRandom.bytes(32)
        nonceExtension = [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce
        let config = Self.config.replacingOccurrences(of: "%NONCE%", with: Hex.encode(nonceExtension))
        try writeBytes(Array(config.utf8), to: directory.file("openssl.cnf"))
        createdAt = Int64(Date().timeIntervalSince1970)
        let path = directory.path
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try openssl(["req", "-x509", "-config", "openssl.cnf", "-extensions", "root_ext", "-days", "3650",
                     "-subj", "/O=Gatehouse Tests/CN=Test Root"] + newKey + ["-keyout", "root.key", "-out", "root.pem"], in: path)
        try openssl(["req", "-x509", "-config", "openssl.cnf", "-extensions", "root_ext", "-days", "3650",
                     "-subj", "/O=Gatehouse Tests/CN=Test Root"] + newKey + ["-keyout", "impostor.key", "-out", "impostor.pem"], in: path)
        try openssl(["req", "-new", "-config", "openssl.cnf", "-subj", "/O=Gatehouse Tests/CN=Test Intermediate"] + newKey
                     + ["-keyout", "intermediate.key", "-out", "intermediate.csr"], in: path)
        try openssl(["x509", "-req", "-in", "intermediate.csr", "-CA", "root.pem", "-CAkey", "root.key", "-set_serial", "2",
                     "-days", "365", "-extfile", "openssl.cnf", "-extensions", "intermediate_ext", "-out", "intermediate.pem"], in: path)
        try openssl(["req", "-new", "-config", "openssl.cnf", "-utf8", "-subj", "/O=Gätehouse Tests/CN=Test Leaf"] + newKey
                     + ["-keyout", "leaf.key", "-out", "leaf.csr"], in: path)
        try openssl(["x509", "-req", "-in", "leaf.csr", "-CA", "intermediate.pem", "-CAkey", "intermediate.key", "-set_serial", "3",
                     "-days", "30", "-extfile", "openssl.cnf", "-extensions", "leaf_ext", "-out", "leaf.pem"], in: path)
        root = try Certificate(pem: try readText(directory.file("root.pem")))
        impostorRoot = try Certificate(pem: try readText(directory.file("impostor.pem")))
        intermediate = try Certificate(pem: try readText(directory.file("intermediate.pem")))
        leaf = try Certificate(pem: try readText(directory.file("leaf.pem")))
    }
}

@Suite struct CertificateTests {
    @Test func readsFields() throws {
        let pki = try TestPKI()
        defer { pki.directory.remove() }
        let leaf = pki.leaf
        #expect(leaf.subject == "CN=Test Leaf,O=Gätehouse Tests")
        #expect(pki.root.subject == "CN=Test Root,O=Gatehouse Tests")
        #expect(abs(leaf.notBefore - pki.createdAt) < 600)
        #expect(leaf.notAfter - leaf.notBefore == 30 * 86_400)
        #expect(pki.root.notAfter - pki.root.notBefore == 3650 * 86_400)

        try openssl(["x509", "-in", "leaf.pem", "-outform", "DER", "-out", "leaf.der"], in: pki.directory.path)
        #expect(leaf.der == (try readBytes(pki.directory.file("leaf.der"))))
        #expect(try Certificate(der: leaf.der).subject == leaf.subject)

        try openssl(["pkey", "-in", "leaf.key", "-pubout", "-outform", "DER", "-out", "leaf-public.der"], in: pki.directory.path)
        #expect(leaf.publicKeyDER == (try readBytes(pki.directory.file("leaf-public.der"))))
        #expect(try ECPublicKey(derSubjectPublicKeyInfo: leaf.publicKeyDER).derSubjectPublicKeyInfo == leaf.publicKeyDER)
    }

    @Test func readsAnExtensionByOID() throws {
        let pki = try TestPKI()
        defer { pki.directory.remove() }
        #expect(pki.leaf.extensionValue(oid: "1.2.840.113635.100.8.2") == pki.nonceExtension)
        // basicConstraints CA:FALSE is an empty SEQUENCE.
        #expect(pki.leaf.extensionValue(oid: "2.5.29.19") == [0x30, 0x00])
        #expect(pki.root.extensionValue(oid: "1.2.840.113635.100.8.2") == nil)
        #expect(pki.leaf.extensionValue(oid: "1.2.840.113635.100.8.5") == nil)
        for bad in ["", "basicConstraints", "1..2", "1.2.840.113635.100.8.2 "] {
            #expect(pki.leaf.extensionValue(oid: bad) == nil)
        }
    }

    @Test func verifiesTheChainWithinItsValidity() throws {
        let pki = try TestPKI()
        defer { pki.directory.remove() }
        for time in [pki.leaf.notBefore, pki.validTime, pki.leaf.notAfter - 1] {
            try Certificate.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], root: pki.root, at: time)
        }
        // Extra and reordered intermediates are fine.
        try Certificate.verifyChain(leaf: pki.leaf, intermediates: [pki.impostorRoot, pki.intermediate], root: pki.root,
                                    at: pki.validTime)
    }

    @Test func refusesAnExpiredOrNotYetValidChain() throws {
        let pki = try TestPKI()
        defer { pki.directory.remove() }
        let expired = try #require(throws: CertificateError.self) {
            try Certificate.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], root: pki.root, at: pki.leaf.notAfter + 1)
        }
        #expect(expired.reason == .expired)
        #expect(expired.message.contains("depth 0"))
        let early = try #require(throws: CertificateError.self) {
            try Certificate.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], root: pki.root, at: pki.root.notBefore - 86_400)
        }
        #expect(early.reason == .notYetValid)
    }

    @Test func refusesTheWrongRootOrAMissingIntermediate() throws {
        let pki = try TestPKI()
        defer { pki.directory.remove() }
        let impostor = try #require(throws: CertificateError.self) {
            try Certificate.verifyChain(leaf: pki.leaf, intermediates: [pki.intermediate], root: pki.impostorRoot, at: pki.validTime)
        }
        #expect(impostor.reason == .untrusted || impostor.reason == .badSignature)
        let missing = try #require(throws: CertificateError.self) {
            try Certificate.verifyChain(leaf: pki.leaf, intermediates: [], root: pki.root, at: pki.validTime)
        }
        #expect(missing.reason == .untrusted)
        // The intermediate is not a trust anchor: partial chains are off.
        let partial = try #require(throws: CertificateError.self) {
            try Certificate.verifyChain(leaf: pki.leaf, intermediates: [], root: pki.intermediate, at: pki.validTime)
        }
        #expect(partial.reason == .untrusted)
    }

    @Test func refusesABrokenLeafSignature() throws {
        let pki = try TestPKI()
        defer { pki.directory.remove() }
        // The signature value is the DER's last field: flip its last byte.
        var der = pki.leaf.der
        der[der.count - 1] ^= 0x01
        let broken = try Certificate(der: der)
        let error = try #require(throws: CertificateError.self) {
            try Certificate.verifyChain(leaf: broken, intermediates: [pki.intermediate], root: pki.root, at: pki.validTime)
        }
        #expect(error.reason == .badSignature)
    }

    @Test func parsesChainsAndRefusesGarbage() throws {
        let pki = try TestPKI()
        defer { pki.directory.remove() }
        let leafPEM = try readText(pki.directory.file("leaf.pem"))
        let intermediatePEM = try readText(pki.directory.file("intermediate.pem"))
        let chain = try Certificate.chain(pem: leafPEM + intermediatePEM)
        #expect(chain.map(\.der) == [pki.leaf.der, pki.intermediate.der])
        #expect(throws: CertificateError.self) { try Certificate(pem: leafPEM + intermediatePEM) }
        #expect(throws: CertificateError.self) { try Certificate(pem: "") }
        #expect(throws: CertificateError.self) { try Certificate.chain(pem: "no certificates here") }
        // A broken second block is an error, not a silently shorter chain.
        let brokenSecond = leafPEM + intermediatePEM.replacingOccurrences(of: "\n", with: "\n!", options: [], range:
            intermediatePEM.range(of: "\n"))
        #expect(throws: CertificateError.self) { try Certificate.chain(pem: brokenSecond) }
        #expect(throws: CertificateError.self) { try Certificate(der: []) }
        #expect(throws: CertificateError.self) { try Certificate(der: pki.leaf.der + [0]) }
        #expect(throws: CertificateError.self) { try Certificate(der: Array(pki.leaf.der.dropLast())) }
    }

    /// Apple's App Attestation Root CA (see AppleRoot.swift): fields match what its publisher states.
    @Test func readsApplesAppAttestationRoot() throws {
        let root = try Certificate(pem: try appleAppAttestationRootPEM())
        #expect(root.subject == "ST=California,O=Apple Inc.,CN=Apple App Attestation Root CA")
        #expect(root.notBefore == 1_584_556_373)  // 2020-03-18T18:32:53Z
        #expect(root.notAfter == 2_373_148_800)  // 2045-03-15T00:00:00Z
        #expect(Hex.encode(SHA256.hash(root.der), uppercase: true, separator: ":")
            == "1C:B9:82:3B:A2:8B:A6:AD:2D:33:A0:06:94:1D:E2:AE:4F:51:3E:F1:D4:E8:31:B9:F7:E0:FA:7B:62:42:C9:32")
        // A P-384 key: not an ECPublicKey.
        #expect(throws: CryptoError.self) { try ECPublicKey(derSubjectPublicKeyInfo: root.publicKeyDER) }
        // Self-signed: it verifies as its own root.
        try Certificate.verifyChain(leaf: root, intermediates: [], root: root, at: 1_700_000_000)
    }
}
