import COpenSSL

extension Certificate {
    /// Whether this certificate's signature verifies under the public key `issuerKey` (a DER SubjectPublicKeyInfo:
    /// RSA or EC), whatever the issuer's own certificate says (its dates, whether it is marked CA): how a chain is
    /// checked link by link against keys pinned by value (Android key attestation's roots).
    public func isSigned(byKey issuerKey: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard let certificate = try? Self.parse(der) else { return false }
        defer { X509_free(certificate) }
        let key: OpaquePointer? = issuerKey.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { return nil }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let key else { return false }
        defer { EVP_PKEY_free(key) }
        return X509_verify(certificate, key) == 1
    }

    /// The serial number in lowercase hex without leading zeros (as Google's attestation status list keys it).
    public var serialHex: String? {
        defer { ERR_clear_error() }
        guard let certificate = try? Self.parse(der), let serial = X509_get0_serialNumber(certificate) else { return nil }
        defer { X509_free(certificate) }
        guard let number = ASN1_INTEGER_to_BN(serial, nil) else { return nil }
        defer { BN_free(number) }
        guard let hex = BN_bn2hex(number) else { return nil }
        defer { gatehouse_openssl_free(hex) }
        let text = String(cString: hex).lowercased()
        let trimmed = text.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }
}
