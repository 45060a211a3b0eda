import COpenSSL

/// Private-key plumbing for ``RSAPrivateKey``: parsing, PKCS#8 encoding, SHA-256 signing.
/// Each function returns an `EVP_PKEY` the caller frees with `EVP_PKEY_free`, or bytes.
extension OpenSSL {
    /// Parses a DER private key (PKCS#8 PrivateKeyInfo, or the algorithm's traditional form) with no trailing bytes.
    static func privateKey(der: [UInt8], operation: String) throws -> OpaquePointer {
        guard !der.isEmpty, der.count <= 1 << 20 else {
            throw CryptoError(operation: operation, reason: "empty or oversized input")
        }
        return try der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = d2i_AutoPrivateKey(nil, &cursor, buffer.count) else {
                throw CryptoError(openSSLOperation: operation)
            }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                EVP_PKEY_free(key)
                throw CryptoError(operation: operation, reason: "trailing bytes after the key")
            }
            return key
        }
    }

    /// Parses the first PEM private key block in `pem`; passphrase-protected keys are refused, never prompted for.
    static func privateKey(pem: String, operation: String) throws -> OpaquePointer {
        let bio = try memoryBIO(Array(pem.utf8), operation: operation)
        defer { BIO_free(bio) }
        let noPassphrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in 0 }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, noPassphrase, nil) else {
            throw CryptoError(openSSLOperation: operation)
        }
        return key
    }

    /// The key as a DER PKCS#8 PrivateKeyInfo (RFC 5208).
    static func pkcs8DER(of key: OpaquePointer, operation: String) throws -> [UInt8] {
        guard let info = EVP_PKEY2PKCS8(key) else { throw CryptoError(openSSLOperation: operation) }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        return try encodeDER(operation: operation) { i2d_PKCS8_PRIV_KEY_INFO(info, $0) }
    }

    /// The key's public half as a DER SubjectPublicKeyInfo.
    static func publicKeyDER(of key: OpaquePointer, operation: String) throws -> [UInt8] {
        try encodeDER(operation: operation) { i2d_PUBKEY(key, $0) }
    }

    /// Signs `message` with SHA-256 and the key's default scheme (ECDSA with a DER signature; RSA PKCS#1 v1.5).
    static func signSHA256(_ message: [UInt8], key: OpaquePointer, operation: String) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, FetchedDigest.sha256, nil, key) == 1 else { throw CryptoError(openSSLOperation: operation) }
        var length = 0
        let sized = withBytes(message) { EVP_DigestSign(context, nil, &length, $0, $1) }
        guard sized == 1, length > 0 else { throw CryptoError(openSSLOperation: operation) }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = withBytes(message) { pointer, count in
            signature.withUnsafeMutableBufferPointer { EVP_DigestSign(context, $0.baseAddress, &length, pointer, count) }
        }
        guard signed == 1 else { throw CryptoError(openSSLOperation: operation) }
        return Array(signature[0..<length])
    }

    /// Generates a key with `EVP_PKEY_keygen` after `configure` has set its parameters on the context.
    static func generateKey(algorithm: String, operation: String, configure: (OpaquePointer) -> Int32) throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1 else { throw CryptoError(openSSLOperation: operation) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw CryptoError(openSSLOperation: operation) }
        return key
    }

    /// PEM armour (RFC 7468) around DER bytes: base64 in lines of 64 characters.
    static func pem(_ der: [UInt8], label: String) -> String {
        let text = Array(Base64.encode(der).utf8)
        var lines: [String] = ["-----BEGIN \(label)-----"]
        var start = 0
        while start < text.count {
            let end = min(start + 64, text.count)
            lines.append(String(decoding: text[start..<end], as: UTF8.self))
            start = end
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }
}
