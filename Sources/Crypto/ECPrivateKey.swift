import COpenSSL

/// A NIST P-256 private key for ECDSA with SHA-256: ES256 JWS signatures (receipts, test tokens) and DER signatures.
///
/// Kept as its PKCS#8 DER bytes and handed to OpenSSL per signature, so the value is `Sendable`. Its description
/// never shows the key.
public struct ECPrivateKey: Sendable {
    /// The key as a DER PKCS#8 PrivateKeyInfo (RFC 5208). Secret.
    public let pkcs8DER: [UInt8]
    /// The matching public key.
    public let publicKey: ECPublicKey

    /// Generates a fresh random key.
    ///
    /// - Throws: ``CryptoError`` when OpenSSL cannot generate one.
    public static func generate() throws -> ECPrivateKey {
        let operation = "generate P-256 key"
        let key = try OpenSSL.generateKey(algorithm: "EC", operation: operation) { EVP_PKEY_CTX_set_group_name($0, "P-256") }
        defer { EVP_PKEY_free(key) }
        return try ECPrivateKey(key: key, operation: operation)
    }

    /// Parses a DER private key: PKCS#8, or SEC 1 `ECPrivateKey` (RFC 5915).
    ///
    /// - Throws: ``CryptoError`` when it does not parse, has trailing bytes, or is not a P-256 key.
    public init(der: [UInt8]) throws {
        let operation = "parse P-256 private key"
        let key = try OpenSSL.privateKey(der: der, operation: operation)
        defer { EVP_PKEY_free(key) }
        try self.init(key: key, operation: operation)
    }

    /// Parses a PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` (SEC 1) block; encrypted keys are refused.
    ///
    /// - Throws: ``CryptoError`` when there is no readable key or it is not a P-256 key.
    public init(pem: String) throws {
        let operation = "parse P-256 private key"
        let key = try OpenSSL.privateKey(pem: pem, operation: operation)
        defer { EVP_PKEY_free(key) }
        try self.init(key: key, operation: operation)
    }

    private init(key: OpaquePointer, operation: String) throws {
        guard EVP_PKEY_is_a(key, "EC") == 1 else {
            throw CryptoError(operation: operation, reason: "not an elliptic-curve key")
        }
        // ECPublicKey checks the curve is P-256.
        publicKey = try ECPublicKey(derSubjectPublicKeyInfo: OpenSSL.publicKeyDER(of: key, operation: operation))
        pkcs8DER = try OpenSSL.pkcs8DER(of: key, operation: operation)
    }

    /// The key as a PEM `PRIVATE KEY` block (PKCS#8). Secret.
    public var pkcs8PEM: String { OpenSSL.pem(pkcs8DER, label: "PRIVATE KEY") }

    /// Signs `message` with ECDSA P-256 over SHA-256(message), in `format` (raw `r || s` for JWS ES256, or DER).
    ///
    /// - Throws: ``CryptoError`` when OpenSSL fails (the message never appears in it).
    public func signature(for message: [UInt8], format: ECPublicKey.SignatureFormat) throws -> [UInt8] {
        let operation = "ECDSA P-256 sign"
        let key = try OpenSSL.privateKey(der: pkcs8DER, operation: operation)
        defer { EVP_PKEY_free(key) }
        let der = try OpenSSL.signSHA256(message, key: key, operation: operation)
        switch format {
        case .der: return der
        case .raw: return try Self.rawSignature(der: der, operation: operation)
        }
    }

    /// Converts a DER ECDSA-Sig-Value into `r || s`, 32 big-endian bytes each (RFC 7518 §3.4).
    static func rawSignature(der: [UInt8], operation: String) throws -> [UInt8] {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw CryptoError(openSSLOperation: operation) }
        defer { ECDSA_SIG_free(signature) }
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else {
            throw CryptoError(openSSLOperation: operation)
        }
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard ok else { throw CryptoError(openSSLOperation: operation) }
        return raw
    }
}

extension ECPrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never shows the key.
    public var description: String { "ECPrivateKey(P-256, <redacted>)" }
    /// Never shows the key.
    public var debugDescription: String { description }
    /// Hides the key from `dump` and other reflection.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
