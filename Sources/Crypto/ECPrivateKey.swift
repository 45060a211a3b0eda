import COpenSSL

/// A NIST P-256 private key that signs ECDSA-with-SHA-256: for test support (synthetic App Attest keys) and for
/// signing keys the server holds (receipts).
///
/// Kept as its PKCS#8 DER bytes and parsed per operation, so the value is `Sendable`. It is a secret: it has no
/// `description`, and nothing here logs it; ``pkcs8PEM`` is for handing it to a tool or sealing it.
public struct ECPrivateKey: Sendable {
    /// The key as DER PKCS#8 `PrivateKeyInfo` (RFC 5208).
    public let pkcs8DER: [UInt8]
    /// The matching public key.
    public let publicKey: ECPublicKey

    /// Generates a fresh P-256 key from OpenSSL's CSPRNG.
    ///
    /// - Throws: ``CryptoError`` when OpenSSL cannot generate a key.
    public static func generate() throws -> ECPrivateKey {
        let operation = "generate P-256 key"
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError(openSSLOperation: operation)
        }
        defer { EVP_PKEY_free(key) }
        return try ECPrivateKey(parsed: key, operation: operation)
    }

    /// Parses a PEM private key (`PRIVATE KEY` PKCS#8 or `EC PRIVATE KEY` SEC 1), unencrypted.
    ///
    /// - Throws: ``CryptoError`` when there is no readable key or it is not a P-256 key.
    public init(pem: String) throws {
        let operation = "parse P-256 private key"
        let bio = try OpenSSL.memoryBIO(Array(pem.utf8), operation: operation)
        defer { BIO_free(bio) }
        let noPassphrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in 0 }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, noPassphrase, nil) else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_PKEY_free(key) }
        try self.init(parsed: key, operation: operation)
    }

    /// Parses DER PKCS#8 `PrivateKeyInfo`.
    ///
    /// - Throws: ``CryptoError`` when it does not parse, has trailing bytes, or is not a P-256 key.
    public init(pkcs8DER der: [UInt8]) throws {
        let operation = "parse P-256 private key"
        let key = try Self.parse(der, operation: operation)
        defer { EVP_PKEY_free(key) }
        try self.init(parsed: key, operation: operation)
    }

    /// The key as a PEM `PRIVATE KEY` block (PKCS#8, unencrypted).
    public var pkcs8PEM: String {
        let body = Base64.encode(pkcs8DER)
        var lines: [Substring] = []
        var rest = Substring(body)
        while !rest.isEmpty {
            lines.append(rest.prefix(64))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN PRIVATE KEY-----\n" + lines.joined(separator: "\n") + "\n-----END PRIVATE KEY-----\n"
    }

    /// An ECDSA signature with SHA-256 over `message` (the digest signed is SHA-256(message)), in ASN.1 DER.
    ///
    /// - Throws: ``CryptoError`` when OpenSSL fails to sign.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        let operation = "ECDSA P-256 sign"
        let key = try Self.parse(pkcs8DER, operation: operation)
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, FetchedDigest.sha256, nil, key) == 1 else { throw CryptoError(openSSLOperation: operation) }
        return try OpenSSL.withBytes(message) { pointer, count in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, pointer, count) == 1 else { throw CryptoError(openSSLOperation: operation) }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, pointer, count) == 1 else { throw CryptoError(openSSLOperation: operation) }
            return Array(signature.prefix(length))
        }
    }

    private init(parsed key: OpaquePointer, operation: String) throws {
        guard let info = EVP_PKEY2PKCS8(key) else { throw CryptoError(openSSLOperation: operation) }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        pkcs8DER = try OpenSSL.encodeDER(operation: operation) { i2d_PKCS8_PRIV_KEY_INFO(info, $0) }
        let spki = try OpenSSL.encodeDER(operation: operation) { i2d_PUBKEY(key, $0) }
        publicKey = try ECPublicKey(derSubjectPublicKeyInfo: spki)
    }

    static func parse(_ der: [UInt8], operation: String) throws -> OpaquePointer {
        guard !der.isEmpty, der.count <= Int(Int32.max) else { throw CryptoError(operation: operation, reason: "empty or oversized key") }
        return try der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = d2i_AutoPrivateKey(nil, &cursor, buffer.count) else { throw CryptoError(openSSLOperation: operation) }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                EVP_PKEY_free(key)
                throw CryptoError(operation: operation, reason: "trailing bytes after the key")
            }
            return key
        }
    }
}
