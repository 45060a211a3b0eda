import COpenSSL

/// A CMS `SignedData` (RFC 5652 §5) with encapsulated content and one signer, read by OpenSSL's CMS from BER or DER
/// (indefinite lengths and a content chunked into several OCTET STRINGs included, as Apple's receipts come), its
/// signer's signature checked in both forms a signer may use.
///
/// Only the mechanics live here: the signer's certificate and the others the structure carries are handed back, so
/// the caller decides which root the chain must reach, at which time, and which extension marks the signer.
public struct SignedData: Sendable {
    /// The encapsulated content (`eContent`), its chunks joined.
    public let content: [UInt8]
    /// The certificate of the one signer, found among the certificates carried.
    public let signer: Certificate
    /// Every certificate carried, the signer's included (the intermediates of its chain are among them).
    public let certificates: [Certificate]
    /// Whether the signer info carries signed attributes (RFC 5652 §5.3).
    public let hasSignedAttributes: Bool
    /// Whether the signer's signature verifies: over the signed attributes (whose message digest must be the
    /// content's), or over the content itself. The second is tried also when signed attributes are present and do
    /// not verify, as one real Apple receipt (2020) signs the raw content beside its signed attributes.
    public let signatureVerifies: Bool

    /// Reads `bytes`, at most `maxBytes` long.
    ///
    /// - Throws: ``CryptoError`` when the bytes are longer than `maxBytes`, are not one CMS ContentInfo (trailing
    ///   bytes refused), not `SignedData` with `data` content, carry no content or not exactly one signer, or the
    ///   signer's certificate is not among those carried.
    public init(ber bytes: [UInt8], maxBytes: Int) throws {
        let operation = "read CMS SignedData"
        guard !bytes.isEmpty, bytes.count <= maxBytes else {
            throw CryptoError(operation: operation, reason: "\(bytes.count) bytes, outside 1…\(maxBytes)")
        }
        defer { ERR_clear_error() }
        let cms: OpaquePointer = try bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let cms = d2i_CMS_ContentInfo(nil, &cursor, buffer.count) else { throw CryptoError(openSSLOperation: operation) }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                CMS_ContentInfo_free(cms)
                throw CryptoError(operation: operation, reason: "trailing bytes after the structure")
            }
            return cms
        }
        defer { CMS_ContentInfo_free(cms) }
        guard OBJ_obj2nid(CMS_get0_type(cms)) == NID_pkcs7_signed else {
            throw CryptoError(operation: operation, reason: "not SignedData")
        }
        guard OBJ_obj2nid(CMS_get0_eContentType(cms)) == NID_pkcs7_data, let slot = CMS_get0_content(cms),
              let octets = slot.pointee else {
            throw CryptoError(operation: operation, reason: "no encapsulated data content")
        }
        content = Self.bytes(of: octets)
        guard let signerInfos = CMS_get0_SignerInfos(cms), OPENSSL_sk_num(signerInfos) == 1,
              let info = OPENSSL_sk_value(signerInfos, 0).map(OpaquePointer.init) else {
            throw CryptoError(operation: operation, reason: "not exactly one signer")
        }

        var certificates: [Certificate] = []
        var signer: Certificate?
        if let carried = CMS_get1_certs(cms) {
            // CMS_get1_certs hands over a new stack holding a reference to each certificate.
            defer {
                for index in 0..<OPENSSL_sk_num(carried) {
                    OPENSSL_sk_value(carried, index).map { X509_free(OpaquePointer($0)) }
                }
                OPENSSL_sk_free(carried)
            }
            for index in 0..<OPENSSL_sk_num(carried) {
                guard let x509 = OPENSSL_sk_value(carried, index).map(OpaquePointer.init) else { continue }
                let der = try OpenSSL.encodeDER(operation: operation) { i2d_X509(x509, $0) }
                let certificate = try Certificate(der: der)
                certificates.append(certificate)
                if signer == nil && CMS_SignerInfo_cert_cmp(info, x509) == 0 { signer = certificate }
            }
        }
        guard let signer else { throw CryptoError(operation: operation, reason: "the signer's certificate is not carried") }
        self.signer = signer
        self.certificates = certificates
        hasSignedAttributes = CMS_signed_get_attr_count(info) > 0

        // The chain is the caller's to judge (its roots, its time): here only the signature.
        let flags = UInt32(CMS_NO_SIGNER_CERT_VERIFY | CMS_BINARY)
        if CMS_verify(cms, nil, nil, nil, nil, flags) == 1 {
            signatureVerifies = true
        } else {
            ERR_clear_error()
            signatureVerifies = hasSignedAttributes && Self.signsContentItself(info, signer: signer, content: content)
        }
    }

    /// Whether the signer info's signature is ECDSA with SHA-256 over the content itself (not over its signed
    /// attributes), by the signer's P-256 key.
    private static func signsContentItself(_ info: OpaquePointer, signer: Certificate, content: [UInt8]) -> Bool {
        var digestAlgorithm: UnsafeMutablePointer<X509_ALGOR>?
        CMS_SignerInfo_get0_algs(info, nil, nil, &digestAlgorithm, nil)
        guard let digestOID = digestAlgorithm?.pointee.algorithm, OBJ_obj2nid(digestOID) == NID_sha256,
              let signature = CMS_SignerInfo_get0_signature(info),
              let key = try? ECPublicKey(derSubjectPublicKeyInfo: signer.publicKeyDER) else { return false }
        return key.isValidSignature(bytes(of: signature), format: .der, for: content)
    }

    private static func bytes(of string: UnsafeMutablePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }
}
