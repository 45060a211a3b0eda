import COpenSSL

/// An RSA private key for RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3): the JWT a Google
/// service account signs to obtain an access token (RFC 7523).
///
/// Kept as its PKCS#8 DER bytes and handed to OpenSSL per signature, so the value is `Sendable`. Its description
/// never shows the key.
public struct RSAPrivateKey: Sendable {
    /// The smallest modulus accepted, in bits (RFC 7518 §3.3 requires 2048).
    public static let minimumBits = 2048

    /// The key as a DER PKCS#8 PrivateKeyInfo (RFC 5208). Secret.
    public let pkcs8DER: [UInt8]
    /// The matching public key.
    public let publicKey: RSAPublicKey

    /// Generates a fresh key of `bits` bits (tests: a fake service account).
    ///
    /// - Throws: ``CryptoError`` when `bits` is below 2048 or above 8192, or OpenSSL fails.
    public static func generate(bits: Int = 2048) throws -> RSAPrivateKey {
        let operation = "generate RSA key"
        guard bits >= minimumBits, bits <= 8192 else {
            throw CryptoError(operation: operation, reason: "bits must be 2048 to 8192, got \(bits)")
        }
        let key = try OpenSSL.generateKey(algorithm: "RSA", operation: operation) {
            EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits))
        }
        defer { EVP_PKEY_free(key) }
        return try RSAPrivateKey(key: key, operation: operation)
    }

    /// Parses a PEM `PRIVATE KEY` (PKCS#8, as in a service account's `private_key`) or `RSA PRIVATE KEY` (PKCS#1)
    /// block; encrypted keys are refused.
    ///
    /// - Throws: ``CryptoError`` when there is no readable key, it is not RSA, or it is under 2048 bits. The reason
    ///   is OpenSSL's or ours and never quotes the key.
    public init(pem: String) throws {
        let operation = "parse RSA private key"
        let key = try OpenSSL.privateKey(pem: pem, operation: operation)
        defer { EVP_PKEY_free(key) }
        try self.init(key: key, operation: operation)
    }

    /// Parses a DER private key (PKCS#8 or PKCS#1).
    ///
    /// - Throws: ``CryptoError`` as ``init(pem:)`` does, or on trailing bytes.
    public init(der: [UInt8]) throws {
        let operation = "parse RSA private key"
        let key = try OpenSSL.privateKey(der: der, operation: operation)
        defer { EVP_PKEY_free(key) }
        try self.init(key: key, operation: operation)
    }

    private init(key: OpaquePointer, operation: String) throws {
        guard EVP_PKEY_is_a(key, "RSA") == 1 else {
            throw CryptoError(operation: operation, reason: "not an RSA key")
        }
        let bits = Int(EVP_PKEY_get_bits(key))
        guard bits >= Self.minimumBits else {
            throw CryptoError(operation: operation, reason: "the key has \(bits) bits; at least \(Self.minimumBits) are needed")
        }
        publicKey = try RSAPublicKey(derSubjectPublicKeyInfo: OpenSSL.publicKeyDER(of: key, operation: operation))
        pkcs8DER = try OpenSSL.pkcs8DER(of: key, operation: operation)
    }

    /// The key as a PEM `PRIVATE KEY` block (PKCS#8), as Google writes it into a service account key. Secret.
    public var pkcs8PEM: String { OpenSSL.pem(pkcs8DER, label: "PRIVATE KEY") }

    /// The RS256 signature (RSASSA-PKCS1-v1_5 with SHA-256) of `message`, as long as the modulus.
    ///
    /// - Throws: ``CryptoError`` when OpenSSL fails (the message never appears in it).
    public func rs256Signature(for message: [UInt8]) throws -> [UInt8] {
        let operation = "RS256 sign"
        let key = try OpenSSL.privateKey(der: pkcs8DER, operation: operation)
        defer { EVP_PKEY_free(key) }
        return try OpenSSL.signSHA256(message, key: key, operation: operation)
    }
}

extension RSAPrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never shows the key.
    public var description: String { "RSAPrivateKey(\(publicKey.bits) bits, <redacted>)" }
    /// Never shows the key.
    public var debugDescription: String { description }
    /// Hides the key from `dump` and other reflection.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
