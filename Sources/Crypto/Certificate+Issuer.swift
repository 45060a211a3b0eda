import COpenSSL

extension Certificate {
    /// Whether this certificate's signature verifies under `issuer`'s public key, whatever the issuer's certificate
    /// says (its dates, whether it is marked CA): how a chain is checked link by link (Android key attestation). The
    /// certificates as parsed: no key is decoded again.
    public func isSigned(by issuer: Certificate) -> Bool {
        defer { ERR_clear_error() }
        guard let key = X509_get0_pubkey(issuer.handle.pointer) else { return false }
        return X509_verify(handle.pointer, key) == 1
    }

    /// Whether this certificate's signature verifies under `key` (a pinned root's: RSA or EC).
    public func isSigned(by key: IssuerKey) -> Bool {
        defer { ERR_clear_error() }
        return X509_verify(handle.pointer, key.handle.pointer) == 1
    }

    /// A public key checked as a certificate's issuer many times (a pinned root), decoded once.
    public struct IssuerKey: Sendable {
        let handle: PublicKeyHandle
        /// The key as given: DER SubjectPublicKeyInfo.
        public let der: [UInt8]

        /// Decodes a DER SubjectPublicKeyInfo.
        /// - Throws: ``CertificateError`` (`.malformed`) when it is not exactly one key.
        public init(der: [UInt8]) throws {
            defer { ERR_clear_error() }
            let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { return nil }
                guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                    EVP_PKEY_free(key)
                    return nil
                }
                return key
            }
            guard let key else { throw CertificateError(.malformed, "not a DER public key") }
            handle = PublicKeyHandle(taking: key)
            self.der = der
        }
    }

    /// The serial number in lowercase hex without leading zeros (as Google's attestation status list keys it).
    public var serialHex: String? {
        defer { ERR_clear_error() }
        guard let serial = X509_get0_serialNumber(handle.pointer) else { return nil }
        guard let number = ASN1_INTEGER_to_BN(serial, nil) else { return nil }
        defer { BN_free(number) }
        guard let hex = BN_bn2hex(number) else { return nil }
        defer { gatehouse_openssl_free(hex) }
        let text = String(cString: hex).lowercased()
        let trimmed = text.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }
}
