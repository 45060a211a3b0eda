import Crypto
import JSON

/// Reads and checks App Attest receipts (docs/device-api.md "Receipts and the risk metric"): pure (bytes, roots, an
/// expectation and a time in; the fields and the reasons out), bounded, no state. Construct once, use from many
/// threads.
///
/// The checks, all collected: the CMS signature (over the signed attributes or over the content itself), the
/// signer's chain to a receipt root at the time, the signer's marker extension 1.2.840.113635.100.12.15, the
/// content's shape, then what the expectation names (type, app id, the key in field 3, freshness) and the
/// expiration time.
public struct AppAttestReceiptReader: Sendable {
    /// The anchors a receipt signer's chain must reach (Apple Root CA - G3 unless replaced).
    public let roots: AppAttestRoots
    /// The largest receipt read, in bytes (Apple's are about 4 KiB).
    public let maxBytes: Int

    /// Apple's receipt-signing marker extension.
    public static let signerMarkerOID = "1.2.840.113635.100.12.15"

    /// A reader trusting `roots`.
    public init(roots: AppAttestRoots, maxBytes: Int = 32 * 1024) {
        self.roots = roots
        self.maxBytes = maxBytes
    }

    /// Checks `bytes` as a receipt meeting `expectation` at `now` (Unix seconds).
    public func check(_ bytes: [UInt8], expecting expectation: AppAttestReceiptExpectation, at now: Int64) -> AppAttestReceiptCheck {
        guard let signed = try? SignedData(ber: bytes, maxBytes: maxBytes) else {
            return AppAttestReceiptCheck(receipt: nil, reasons: [.malformed])
        }
        var reasons: [AppAttestReceiptReason] = []
        if !signed.signatureVerifies { reasons.append(.signatureInvalid) }
        let intermediates = signed.certificates.filter { $0.der != signed.signer.der }
        let chained = roots.certificates.contains { root in
            (try? Certificate.verifyChain(leaf: signed.signer, intermediates: intermediates, root: root, at: now)) != nil
        }
        if !chained { reasons.append(.certificateChainInvalid) }
        if signed.signer.extensionValue(oid: Self.signerMarkerOID) == nil { reasons.append(.notReceiptSigner) }
        guard let receipt = Self.receipt(signed.content) else {
            return AppAttestReceiptCheck(receipt: nil, reasons: reasons + [.malformed])
        }
        if let type = expectation.type, receipt.type != type { reasons.append(.typeMismatch) }
        if let appId = expectation.appId, receipt.appId != appId { reasons.append(.appIdMismatch) }
        if let key = expectation.attestedKey, receipt.attestedKey != key { reasons.append(.publicKeyMismatch) }
        if let expiration = receipt.expirationTime, now > expiration { reasons.append(.expired) }
        if let window = expectation.freshWithin, abs(now - receipt.creationTime) > window { reasons.append(.stale) }
        return AppAttestReceiptCheck(receipt: receipt, reasons: reasons)
    }

    /// The fields of a receipt's content; nil when it is out of shape or lacks a field every receipt has.
    static func receipt(_ content: [UInt8]) -> AppAttestReceipt? {
        guard let fields = AppleReceiptFields(content), let type = fields.text(6), let appId = fields.text(2),
              let certificate = fields.values[3], let created = fields.text(12).flatMap(Timestamp.parse) else { return nil }
        func time(_ field: Int) -> Int64?? {
            guard let text = fields.text(field) else { return .some(nil) }
            return Timestamp.parse(text).map { .some($0) }
        }
        guard let notBefore = time(19), let expiration = time(21) else { return nil }
        var riskMetric: Int?
        if let text = fields.text(17) {
            guard !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(text) else { return nil }
            riskMetric = value
        }
        let key = (try? Certificate(der: certificate)).flatMap { try? ECPublicKey(derSubjectPublicKeyInfo: $0.publicKeyDER) }
        return AppAttestReceipt(type: type, appId: appId, attestedCertificate: certificate, attestedKey: key?.x962,
                                clientHash: fields.values[4], token: fields.text(5), environment: fields.text(7),
                                creationTime: created, riskMetric: riskMetric, notBefore: notBefore, expirationTime: expiration)
    }
}
