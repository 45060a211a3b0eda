import COpenSSL

/// An RSA public key, to check RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3), such as the
/// service-account JWTs a test's fake Google receives.
public struct RSAPublicKey: Sendable, Equatable {
    /// The key as a DER SubjectPublicKeyInfo.
    public let derSubjectPublicKeyInfo: [UInt8]
    /// The modulus length in bits.
    public let bits: Int

    /// Parses a DER SubjectPublicKeyInfo holding an RSA key.
    ///
    /// - Throws: ``CryptoError`` when it does not parse, has trailing bytes, or is not RSA.
    public init(derSubjectPublicKeyInfo der: [UInt8]) throws {
        let operation = "parse RSA public key"
        guard !der.isEmpty, der.count <= 1 << 16 else {
            throw CryptoError(operation: operation, reason: "empty or oversized input")
        }
        let key = try Self.parse(der, operation: operation)
        defer { EVP_PKEY_free(key) }
        guard EVP_PKEY_is_a(key, "RSA") == 1 else {
            throw CryptoError(operation: operation, reason: "not an RSA key")
        }
        bits = Int(EVP_PKEY_get_bits(key))
        derSubjectPublicKeyInfo = try OpenSSL.publicKeyDER(of: key, operation: operation)
    }

    /// Parses a PEM `PUBLIC KEY` block (SubjectPublicKeyInfo).
    ///
    /// - Throws: ``CryptoError`` as ``init(derSubjectPublicKeyInfo:)`` does, or when there is no PEM block.
    public init(pem: String) throws {
        let operation = "parse RSA public key"
        let bio = try OpenSSL.memoryBIO(Array(pem.utf8), operation: operation)
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_PKEY_free(key) }
        try self.init(derSubjectPublicKeyInfo: OpenSSL.publicKeyDER(of: key, operation: operation))
    }

    /// Whether `signature` is a valid RS256 signature of `message` by this key; false for anything malformed.
    public func isValidRS256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard !signature.isEmpty, signature.count == (bits + 7) / 8,
              let key = try? Self.parse(derSubjectPublicKeyInfo, operation: "RS256 verify") else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, FetchedDigest.sha256, nil, key) == 1 else { return false }
        return OpenSSL.withBytes(message) { pointer, count in
            EVP_DigestVerify(context, signature, signature.count, pointer, count) == 1
        }
    }

    private static func parse(_ der: [UInt8], operation: String) throws -> OpaquePointer {
        try der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { throw CryptoError(openSSLOperation: operation) }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                EVP_PKEY_free(key)
                throw CryptoError(operation: operation, reason: "trailing bytes after the key")
            }
            return key
        }
    }
}
