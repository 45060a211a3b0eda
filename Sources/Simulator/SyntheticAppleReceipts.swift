import Attestation
import Crypto
import Foundation
import JSON

/// A stand-in for Apple's receipt signing, for tests and the simulator: a root (as Apple Root CA - G3), an
/// intermediate, and a P-256 signer carrying the marker extension 1.2.840.113635.100.12.15, made with the `openssl`
/// tool; it signs receipt contents into CMS SignedData as Apple does. Check them with ``roots`` in place of Apple's.
public struct SyntheticAppleReceipts: Sendable {
    /// The root certificate, PEM (what `--app-attest-receipt-roots` would read).
    public let rootPEM: String
    /// The root as reader roots.
    public let roots: AppAttestRoots
    /// The intermediate certificate, PEM (carried in every receipt).
    public let intermediatePEM: String
    /// The signer's certificate and key, PEM.
    public let signerPEM: String
    public let signerKeyPEM: String

    /// Makes a root, an intermediate and a signer valid ten years from now; `marker: false` leaves the marker
    /// extension off the signer (a certificate Apple did not make a receipt signer).
    ///
    /// - Throws: when `openssl` fails.
    public init(marker: Bool = true) throws {
        let work = try WorkDirectory()
        defer { work.remove() }
        let tool = work.tool
        try tool.rootAndIntermediate(root: "/CN=Synthetic Root CA - G3/O=Gatehouse Tests",
                                     intermediate: "/CN=Synthetic Application Integration CA 5 - G1/O=Gatehouse Tests")
        try tool.write("keyUsage=critical,digitalSignature\n" + (marker ? "1.2.840.113635.100.12.15=ASN1:NULL\n" : ""), to: "signer.ext")
        try tool.run(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                      "-keyout", "@signer.key", "-out", "@signer.csr", "-subj", "/CN=Synthetic Fraud Receipt Signing/O=Gatehouse Tests"])
        try tool.run(["x509", "-req", "-in", "@signer.csr", "-CA", "@ca.pem", "-CAkey", "@ca.key", "-set_serial", "3",
                      "-days", "3650", "-sha256", "-extfile", "@signer.ext", "-out", "@signer.pem"])
        rootPEM = try tool.read("root.pem")
        intermediatePEM = try tool.read("ca.pem")
        signerPEM = try tool.read("signer.pem")
        signerKeyPEM = try tool.read("signer.key")
        roots = try AppAttestRoots(pem: rootPEM)
    }

    /// A receipt signing from files (`gatehouse simulate make-ca` writes them).
    ///
    /// - Throws: when the root cannot be read as roots.
    public init(signerPEM: String, signerKeyPEM: String, intermediatePEM: String, rootPEM: String) throws {
        self.signerPEM = signerPEM
        self.signerKeyPEM = signerKeyPEM
        self.intermediatePEM = intermediatePEM
        self.rootPEM = rootPEM
        roots = try AppAttestRoots(pem: rootPEM)
    }

    /// The fields of a receipt, by type (docs/device-api.md: 2 app id, 3 the attested certificate, 4 client hash, 5 token,
    /// 6 type, 7 environment, 12 creation, 17 risk metric, 19 not before, 21 expiration).
    public static func fields(type: String, appId: String, certificate: [UInt8], clientHash: [UInt8], environment: String,
                              created: Int64, riskMetric: Int? = nil, notBefore: Int64? = nil, expires: Int64) -> [Int: [UInt8]] {
        var fields: [Int: [UInt8]] = [
            2: Array(appId.utf8), 3: certificate, 4: clientHash, 5: Array(Base64.encode((0..<64).map { _ in UInt8.random(in: 0...255) }).utf8),
            6: Array(type.utf8), 7: Array(environment.utf8), 12: Array(time(created).utf8), 21: Array(time(expires).utf8),
        ]
        if let riskMetric { fields[17] = Array(String(riskMetric).utf8) }
        if let notBefore { fields[19] = Array(time(notBefore).utf8) }
        return fields
    }

    /// Signs `fields` as a receipt: the DER `SET OF SEQUENCE { type, 1, value }` in a CMS SignedData carrying the
    /// signer and the intermediate, with no signed attributes (as Apple's receipts come) unless `signedAttributes`.
    ///
    /// - Throws: when `openssl` fails.
    public func sign(_ fields: [Int: [UInt8]], signedAttributes: Bool = false) throws -> [UInt8] {
        try sign(content: Self.content(fields), signedAttributes: signedAttributes)
    }

    /// Signs `content` as it is (tests of content out of shape).
    ///
    /// - Throws: when `openssl` fails.
    public func sign(content: [UInt8], signedAttributes: Bool = false) throws -> [UInt8] {
        let work = try WorkDirectory()
        defer { work.remove() }
        let tool = work.tool
        try Data(content).write(to: URL(fileURLWithPath: work.path + "/content.der"))
        try tool.write(signerPEM, to: "signer.pem")
        try tool.write(signerKeyPEM, to: "signer.key")
        try tool.write(intermediatePEM, to: "ca.pem")
        try tool.run(["cms", "-sign", "-binary", "-nodetach", "-outform", "DER", "-md", "sha256", "-in", "@content.der",
                      "-signer", "@signer.pem", "-inkey", "@signer.key", "-certfile", "@ca.pem", "-out", "@receipt.der"]
                     + (signedAttributes ? [] : ["-noattr"]))
        return Array(try Data(contentsOf: URL(fileURLWithPath: work.path + "/receipt.der")))
    }

    /// The DER content: a SET OF in DER order (its members sorted by their encodings, X.690 §11.6).
    public static func content(_ fields: [Int: [UInt8]]) -> [UInt8] {
        let members = fields.map { type, value in
            let body = integer(type) + integer(1) + [0x04] + SyntheticAppAttest.derLength(value.count) + value
            return [0x30] + SyntheticAppAttest.derLength(body.count) + body
        }.sorted { $0.lexicographicallyPrecedes($1) }
        let body = members.flatMap { $0 }
        return [0x31] + SyntheticAppAttest.derLength(body.count) + body
    }

    private static func integer(_ value: Int) -> [UInt8] {
        var bytes = withUnsafeBytes(of: UInt32(value).bigEndian, Array.init).drop { $0 == 0 }
        if bytes.isEmpty || bytes.first.map({ $0 & 0x80 != 0 }) == true { bytes.insert(0, at: bytes.startIndex) }
        return [0x02, UInt8(bytes.count)] + bytes
    }

    /// RFC 3339 with milliseconds, as Apple writes receipt times.
    private static func time(_ seconds: Int64) -> String {
        String(Timestamp.format(seconds).dropLast()) + ".000Z"
    }
}
