import COpenSSL
import Glibc

/// An X.509 certificate (RFC 5280), kept as its DER bytes with the fields callers read parsed once.
public struct Certificate: Sendable {
    /// The DER encoding.
    public let der: [UInt8]
    /// The subject in one-line RFC 2253 form, last RDN first (§2.1), e.g.
    /// `ST=California,O=Apple Inc.,CN=Apple App Attestation Root CA`
    /// (non-ASCII characters are kept as UTF-8).
    public let subject: String
    /// Start of validity, in Unix seconds.
    public let notBefore: Int64
    /// End of validity, in Unix seconds.
    public let notAfter: Int64
    /// The subject public key as a DER SubjectPublicKeyInfo (feed it to ``ECPublicKey/init(derSubjectPublicKeyInfo:)``).
    public let publicKeyDER: [UInt8]
    /// The parsed certificate, kept for the checks that read it (``extensionValue(oid:)``, ``isSigned(by:)``).
    let handle: X509Handle

    /// Parses a DER certificate.
    ///
    /// - Throws: ``CertificateError`` (`.malformed`) when the bytes are not exactly one certificate.
    public init(der: [UInt8]) throws {
        try self.init(parsed: X509Handle(taking: try Self.parse(der)), der: der)
    }

    /// Parses a PEM text holding exactly one `CERTIFICATE` block.
    ///
    /// - Throws: ``CertificateError`` (`.malformed`) when there is no certificate or more than one.
    public init(pem: String) throws {
        let certificates = try Self.chain(pem: pem)
        guard certificates.count == 1, let only = certificates.first else {
            throw CertificateError(.malformed, "expected one certificate, found \(certificates.count); use Certificate.chain(pem:)")
        }
        self = only
    }

    /// Parses every `CERTIFICATE` block of a PEM text, in order (a leaf followed by its intermediates, say).
    ///
    /// - Throws: ``CertificateError`` (`.malformed`) when there is none or a block does not parse.
    public static func chain(pem: String) throws -> [Certificate] {
        let bio: OpaquePointer
        do {
            bio = try OpenSSL.memoryBIO(Array(pem.utf8), operation: "read PEM")
        } catch {
            throw CertificateError(.malformed, "\(error)")
        }
        defer { BIO_free(bio) }
        ERR_clear_error()
        var certificates: [Certificate] = []
        // No passphrase: a block claiming encryption fails instead of prompting on the terminal.
        let noPassphrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in 0 }
        while let certificate = PEM_read_bio_X509(bio, nil, noPassphrase, nil) {
            let handle = X509Handle(taking: certificate)
            let der: [UInt8]
            do {
                der = try OpenSSL.encodeDER(operation: "encode certificate") { i2d_X509(certificate, $0) }
            } catch {
                throw CertificateError(.malformed, "\(error)")
            }
            certificates.append(try Certificate(parsed: handle, der: der))
        }
        // The loop ends with "no start line" once the text is used up; anything else is a broken block.
        let last = ERR_peek_last_error()
        if last != 0 && ERR_GET_REASON(last) != PEM_R_NO_START_LINE {
            throw CertificateError(.malformed, "certificate \(certificates.count + 1) does not parse: \(OpenSSL.drainErrors())")
        }
        ERR_clear_error()
        guard !certificates.isEmpty else {
            throw CertificateError(.malformed, "no PEM CERTIFICATE block found")
        }
        return certificates
    }

    /// The contents of the extension's `extnValue` OCTET STRING (the DER of the extension's own value) for the
    /// dotted `oid` (e.g. "1.2.840.113635.100.8.2", App Attest's nonce), or nil when absent or `oid` is not a
    /// dotted OID.
    public func extensionValue(oid: String) -> [UInt8]? {
        defer { ERR_clear_error() }
        guard !oid.isEmpty, oid.allSatisfy({ $0 == "." || ($0.isASCII && $0.isNumber) }),
              let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let certificate = handle.pointer
        let index = X509_get_ext_by_OBJ(certificate, object, -1)
        guard index >= 0, let `extension` = X509_get_ext(certificate, index),
              let data = X509_EXTENSION_get_data(`extension`) else { return nil }
        let length = Int(ASN1_STRING_length(data))
        guard length > 0, let bytes = ASN1_STRING_get0_data(data) else { return length == 0 ? [] : nil }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// Parses DER into an `X509` the caller frees; trailing bytes are refused.
    static func parse(_ der: [UInt8]) throws -> OpaquePointer {
        guard !der.isEmpty, der.count <= Int(Int32.max) else {
            throw CertificateError(.malformed, "empty or oversized certificate")
        }
        return try der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else {
                throw CertificateError(.malformed, "not a DER certificate: \(OpenSSL.drainErrors())")
            }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                X509_free(certificate)
                throw CertificateError(.malformed, "trailing bytes after the certificate")
            }
            return certificate
        }
    }

    private init(parsed handle: X509Handle, der: [UInt8]) throws {
        let certificate = handle.pointer
        self.handle = handle
        self.der = der
        subject = try Self.oneLine(X509_get_subject_name(certificate))
        guard let start = X509_get0_notBefore(certificate), let end = X509_get0_notAfter(certificate),
              let notBefore = Self.unixTime(start), let notAfter = Self.unixTime(end) else {
            throw CertificateError(.malformed, "unreadable validity dates")
        }
        self.notBefore = notBefore
        self.notAfter = notAfter
        guard let publicKey = X509_get_X509_PUBKEY(certificate),
              let publicKeyDER = try? OpenSSL.encodeDER(operation: "encode public key", { i2d_X509_PUBKEY(publicKey, $0) }) else {
            throw CertificateError(.malformed, "unreadable public key: \(OpenSSL.drainErrors())")
        }
        self.publicKeyDER = publicKeyDER
    }

    private static func oneLine(_ name: OpaquePointer?) throws -> String {
        guard let name, let bio = BIO_new(BIO_s_mem()) else {
            throw CertificateError(.malformed, "unreadable subject")
        }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, gatehouse_name_flags_rfc2253_utf8()) >= 0 else {
            throw CertificateError(.malformed, "unreadable subject: \(OpenSSL.drainErrors())")
        }
        return String(decoding: OpenSSL.contents(of: bio), as: UTF8.self)
    }

    private static func unixTime(_ time: UnsafePointer<ASN1_TIME>) -> Int64? {
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts))
    }
}
