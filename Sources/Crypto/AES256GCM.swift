import COpenSSL

/// Raw AES-256-GCM (NIST SP 800-38D) with a caller-given IV, associated data and 128-bit tag, for formats that
/// carry those pieces apart, such as JWE `A256GCM` (RFC 7518 §5.3). For secrets at rest use ``SecretBox``, which
/// draws its own nonces.
public enum AES256GCM {
    /// The key length in bytes.
    public static let keyLength = 32
    /// The tag length in bytes (128 bits; shorter tags are not accepted).
    public static let tagLength = 16
    /// The only IV length accepted (96 bits, SP 800-38D §8.2's recommendation and JWE's requirement).
    public static let ivLength = 12

    /// Encrypts `plaintext` and authenticates it with `associatedData`; returns the ciphertext (as long as the
    /// plaintext) and the 16-byte tag. Never reuse an IV under one key.
    ///
    /// - Throws: ``CryptoError`` when the key or IV length is wrong, the input exceeds 2 GiB, or OpenSSL fails.
    public static func encrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8], associatedData: [UInt8]) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        try encrypt(plaintext, key: key, iv: iv, associatedData: associatedData, operation: "AES-256-GCM encrypt")
    }

    /// Checks `tag` over `associatedData` and `ciphertext` and returns the plaintext; nothing is returned unless
    /// the tag verifies.
    ///
    /// - Throws: ``CryptoError`` when a length is wrong (key 32, IV 12, tag 16 bytes), the input exceeds 2 GiB, or
    ///   authentication fails (wrong key, IV, associated data, or altered bytes). The error quotes none of the bytes.
    public static func decrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8], associatedData: [UInt8], tag: [UInt8]) throws -> [UInt8] {
        try decrypt(ciphertext, key: key, iv: iv, associatedData: associatedData, tag: tag, operation: "AES-256-GCM decrypt")
    }

    /// ``encrypt(_:key:iv:associatedData:)``, its errors naming `operation` (``SecretBox`` seals through it).
    static func encrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8], associatedData: [UInt8],
                        operation: String) throws -> (ciphertext: [UInt8], tag: [UInt8]) {
        let context = try start(encrypt: true, key: key, iv: iv, associatedData: associatedData, count: plaintext.count, operation: operation)
        defer { EVP_CIPHER_CTX_free(context) }
        let ciphertext = try finish(context, plaintext, encrypt: true, operation: operation)
        var tag = [UInt8](repeating: 0, count: tagLength)
        guard tag.withUnsafeMutableBytes({
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), $0.baseAddress)
        }) == 1 else { throw CryptoError(openSSLOperation: operation) }
        return (ciphertext, tag)
    }

    /// ``decrypt(_:key:iv:associatedData:tag:)``, its errors naming `operation` (``SecretBox`` opens through it).
    static func decrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8], associatedData: [UInt8], tag: [UInt8],
                        operation: String) throws -> [UInt8] {
        guard tag.count == tagLength else {
            throw CryptoError(operation: operation, reason: "tag must be \(tagLength) bytes, got \(tag.count)")
        }
        let context = try start(encrypt: false, key: key, iv: iv, associatedData: associatedData, count: ciphertext.count, operation: operation)
        defer { EVP_CIPHER_CTX_free(context) }
        var expected = tag
        guard expected.withUnsafeMutableBytes({
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), $0.baseAddress)
        }) == 1 else { throw CryptoError(openSSLOperation: operation) }
        return try finish(context, ciphertext, encrypt: false, operation: operation)
    }

    /// Runs the keyed `context` over `input` and finishes it (for decryption the tag is set already, and finishing
    /// checks it); returns the output.
    ///
    /// - Throws: ``CryptoError`` when OpenSSL fails, or when the tag does not verify, after wiping what was
    ///   decrypted: unauthenticated plaintext never leaves.
    private static func finish(_ context: OpaquePointer, _ input: [UInt8], encrypt: Bool, operation: String) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        var total = 0
        if !input.isEmpty {
            let updated = output.withUnsafeMutableBufferPointer {
                encrypt
                    ? EVP_EncryptUpdate(context, $0.baseAddress, &written, input, Int32(input.count))
                    : EVP_DecryptUpdate(context, $0.baseAddress, &written, input, Int32(input.count))
            }
            guard updated == 1 else { throw CryptoError(openSSLOperation: operation) }
            total = Int(written)
        }
        let finished = output.withUnsafeMutableBufferPointer {
            encrypt
                ? EVP_EncryptFinal_ex(context, $0.baseAddress.map { $0 + total }, &written)
                : EVP_DecryptFinal_ex(context, $0.baseAddress.map { $0 + total }, &written)
        }
        guard finished == 1 else {
            guard !encrypt else { throw CryptoError(openSSLOperation: operation) }
            output.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            _ = OpenSSL.drainErrors()
            throw CryptoError(operation: operation, reason: "authentication failed (wrong key, IV or associated data, or altered bytes)")
        }
        total += Int(written)
        return Array(output[0..<total])
    }

    /// Makes a context keyed for one message and feeds it the associated data; the caller frees it.
    private static func start(encrypt: Bool, key: [UInt8], iv: [UInt8], associatedData: [UInt8], count: Int, operation: String) throws -> OpaquePointer {
        guard key.count == keyLength else {
            throw CryptoError(operation: operation, reason: "key must be \(keyLength) bytes, got \(key.count)")
        }
        guard iv.count == ivLength else {
            throw CryptoError(operation: operation, reason: "IV must be \(ivLength) bytes, got \(iv.count)")
        }
        guard count <= Int(Int32.max) - 64, associatedData.count <= Int(Int32.max) else {
            throw CryptoError(operation: operation, reason: "input is too large")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(openSSLOperation: operation) }
        let cipher = EVP_aes_256_gcm()
        let initialized = encrypt
            ? EVP_EncryptInit_ex(context, cipher, nil, key, iv)
            : EVP_DecryptInit_ex(context, cipher, nil, key, iv)
        guard initialized == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw CryptoError(openSSLOperation: operation)
        }
        if !associatedData.isEmpty {
            var ignored: Int32 = 0
            let fed = encrypt
                ? EVP_EncryptUpdate(context, nil, &ignored, associatedData, Int32(associatedData.count))
                : EVP_DecryptUpdate(context, nil, &ignored, associatedData, Int32(associatedData.count))
            guard fed == 1 else {
                EVP_CIPHER_CTX_free(context)
                throw CryptoError(openSSLOperation: operation)
            }
        }
        return context
    }
}
