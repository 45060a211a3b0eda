import COpenSSL

/// AES-256 Key Wrap (RFC 3394 with the default initial value A6A6A6A6A6A6A6A6), as JWE `A256KW` uses it
/// (RFC 7518 §4.4) to carry a content-encryption key.
///
/// Unwrapping checks RFC 3394's integrity value, so a wrong key-encryption key or altered bytes fail instead of
/// yielding a wrong key.
public enum AESKeyWrap {
    /// The key-encryption key length in bytes (AES-256).
    public static let keyLength = 32

    /// Unwraps `wrapped` (8 bytes longer than the key it carries) with the key-encryption key `key`.
    ///
    /// - Throws: ``CryptoError`` when `key` is not 32 bytes, `wrapped` is not 24 to 4104 bytes in multiples of 8,
    ///   or the integrity check fails (wrong key or altered bytes). The error never quotes any of the bytes.
    public static func unwrap(_ wrapped: [UInt8], key: [UInt8]) throws -> [UInt8] {
        let operation = "AES-256 key unwrap"
        guard wrapped.count >= 24, wrapped.count <= 4104, wrapped.count % 8 == 0 else {
            throw CryptoError(operation: operation, reason: "wrapped key must be 24 to 4104 bytes in multiples of 8, got \(wrapped.count)")
        }
        return try run(wrapped, key: key, encrypt: false, outputCount: wrapped.count - 8, operation: operation)
    }

    /// Wraps `keyData` (16 to 4096 bytes in multiples of 8) under the key-encryption key `key`.
    ///
    /// - Throws: ``CryptoError`` when a length is wrong or OpenSSL fails.
    public static func wrap(_ keyData: [UInt8], key: [UInt8]) throws -> [UInt8] {
        let operation = "AES-256 key wrap"
        guard keyData.count >= 16, keyData.count <= 4096, keyData.count % 8 == 0 else {
            throw CryptoError(operation: operation, reason: "key data must be 16 to 4096 bytes in multiples of 8, got \(keyData.count)")
        }
        return try run(keyData, key: key, encrypt: true, outputCount: keyData.count + 8, operation: operation)
    }

    private static func run(_ input: [UInt8], key: [UInt8], encrypt: Bool, outputCount: Int, operation: String) throws -> [UInt8] {
        guard key.count == keyLength else {
            throw CryptoError(operation: operation, reason: "key must be \(keyLength) bytes, got \(key.count)")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_CIPHER_CTX_free(context) }
        // Wrap-mode ciphers are refused by the EVP layer unless the context allows them explicitly.
        EVP_CIPHER_CTX_set_flags(context, Int32(EVP_CIPHER_CTX_FLAG_WRAP_ALLOW))
        guard EVP_CipherInit_ex(context, EVP_aes_256_wrap(), nil, key, nil, encrypt ? 1 : 0) == 1 else {
            throw CryptoError(openSSLOperation: operation)
        }
        // OpenSSL may write up to one block more than the result while working.
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        let updated = output.withUnsafeMutableBufferPointer {
            EVP_CipherUpdate(context, $0.baseAddress, &written, input, Int32(input.count))
        }
        guard updated == 1 else {
            output.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            _ = OpenSSL.drainErrors()
            throw CryptoError(operation: operation, reason: encrypt ? "wrapping failed" : "integrity check failed (wrong key or altered bytes)")
        }
        var total = Int(written)
        let finished = output.withUnsafeMutableBufferPointer {
            EVP_CipherFinal_ex(context, $0.baseAddress.map { $0 + total }, &written)
        }
        guard finished == 1 else {
            output.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            throw CryptoError(openSSLOperation: operation)
        }
        total += Int(written)
        guard total == outputCount else {
            output.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            throw CryptoError(operation: operation, reason: "unexpected output length \(total)")
        }
        return Array(output[0..<total])
    }
}
