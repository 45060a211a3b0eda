import COpenSSL

/// Authenticated encryption of small secrets at rest with AES-256-GCM (NIST SP 800-38D).
///
/// Sealed format, version 1: `[0x01][nonce: 12 bytes][ciphertext][tag: 16 bytes]`. Each seal draws a fresh
/// random 96-bit nonce, so one key must not seal more than about 2³² messages (SP 800-38D §8.3); a
/// management plane's credentials stay far below that. The associated data (for example the owning record's
/// id) is authenticated but not stored: `open` needs the same value.
public struct SecretBox: Sendable {
    /// The key length in bytes (AES-256).
    public static let keyLength = 32
    /// The format version written as the first byte.
    static let version: UInt8 = 1
    /// The GCM nonce length in bytes.
    static let nonceLength = 12
    /// The GCM tag length in bytes.
    static let tagLength = 16

    private let key: [UInt8]

    /// Creates a box for `key`.
    ///
    /// - Throws: ``CryptoError`` unless `key` is exactly 32 bytes.
    public init(key: [UInt8]) throws {
        guard key.count == Self.keyLength else {
            throw CryptoError(operation: "SecretBox key", reason: "key must be \(Self.keyLength) bytes, got \(key.count)")
        }
        self.key = key
    }

    /// Encrypts and authenticates `plaintext` together with `associatedData` under a fresh random nonce.
    ///
    /// - Throws: ``CryptoError`` when the random generator or OpenSSL fails, or the input exceeds 2 GiB.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        try seal(plaintext, associatedData: associatedData, nonce: SecureRandom.bytes(Self.nonceLength))
    }

    /// Seals with a caller-chosen nonce, for known-answer tests only: reusing a nonce under one key
    /// destroys GCM's confidentiality and authenticity.
    package func seal(_ plaintext: [UInt8], associatedData: [UInt8], nonce: [UInt8]) throws -> [UInt8] {
        let operation = "AES-256-GCM seal"
        guard nonce.count == Self.nonceLength else {
            throw CryptoError(operation: operation, reason: "nonce must be \(Self.nonceLength) bytes")
        }
        guard plaintext.count <= Int(Int32.max) - 64, associatedData.count <= Int(Int32.max) else {
            throw CryptoError(operation: operation, reason: "input is too large")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_CIPHER_CTX_free(context) }

        guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(Self.nonceLength), nil) == 1,
              EVP_EncryptInit_ex(context, nil, nil, key, nonce) == 1 else {
            throw CryptoError(openSSLOperation: operation)
        }
        try Self.addAssociatedData(associatedData, to: context, encrypt: true, operation: operation)

        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written: Int32 = 0
        var total = 0
        if !plaintext.isEmpty {
            guard ciphertext.withUnsafeMutableBufferPointer({
                EVP_EncryptUpdate(context, $0.baseAddress, &written, plaintext, Int32(plaintext.count))
            }) == 1 else { throw CryptoError(openSSLOperation: operation) }
            total = Int(written)
        }
        guard ciphertext.withUnsafeMutableBufferPointer({
            EVP_EncryptFinal_ex(context, $0.baseAddress.map { $0 + total }, &written)
        }) == 1 else { throw CryptoError(openSSLOperation: operation) }
        total += Int(written)

        var tag = [UInt8](repeating: 0, count: Self.tagLength)
        guard tag.withUnsafeMutableBytes({
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), $0.baseAddress)
        }) == 1 else { throw CryptoError(openSSLOperation: operation) }

        var sealed: [UInt8] = [Self.version]
        sealed.reserveCapacity(1 + Self.nonceLength + total + Self.tagLength)
        sealed += nonce
        sealed += ciphertext[0..<total]
        sealed += tag
        return sealed
    }

    /// Checks and decrypts a sealed message made by ``seal(_:associatedData:)`` with the same key and
    /// associated data.
    ///
    /// - Throws: ``CryptoError`` when the message is too short, has an unknown version, or fails
    ///   authentication (tampered bytes, wrong key, wrong associated data). Nothing is returned unless the
    ///   tag verifies.
    public func open(_ sealed: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        let operation = "AES-256-GCM open"
        guard sealed.count >= 1 + Self.nonceLength + Self.tagLength else {
            throw CryptoError(operation: operation, reason: "sealed message is too short")
        }
        guard sealed[0] == Self.version else {
            throw CryptoError(operation: operation, reason: "unknown sealed format version \(sealed[0])")
        }
        guard sealed.count <= Int(Int32.max), associatedData.count <= Int(Int32.max) else {
            throw CryptoError(operation: operation, reason: "input is too large")
        }
        let nonce = Array(sealed[1...Self.nonceLength])
        let ciphertext = Array(sealed[(1 + Self.nonceLength)..<(sealed.count - Self.tagLength)])
        var tag = Array(sealed[(sealed.count - Self.tagLength)...])

        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(openSSLOperation: operation) }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(Self.nonceLength), nil) == 1,
              EVP_DecryptInit_ex(context, nil, nil, key, nonce) == 1 else {
            throw CryptoError(openSSLOperation: operation)
        }
        try Self.addAssociatedData(associatedData, to: context, encrypt: false, operation: operation)

        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        var total = 0
        if !ciphertext.isEmpty {
            guard plaintext.withUnsafeMutableBufferPointer({
                EVP_DecryptUpdate(context, $0.baseAddress, &written, ciphertext, Int32(ciphertext.count))
            }) == 1 else { throw CryptoError(openSSLOperation: operation) }
            total = Int(written)
        }
        guard tag.withUnsafeMutableBytes({
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), $0.baseAddress)
        }) == 1 else { throw CryptoError(openSSLOperation: operation) }
        let verified = plaintext.withUnsafeMutableBufferPointer {
            EVP_DecryptFinal_ex(context, $0.baseAddress.map { $0 + total }, &written)
        }
        guard verified == 1 else {
            // Do not hand back the unauthenticated plaintext; wipe it.
            plaintext.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            _ = OpenSSL.drainErrors()
            throw CryptoError(operation: operation, reason: "authentication failed (tampered data, wrong key or wrong associated data)")
        }
        total += Int(written)
        return Array(plaintext[0..<total])
    }

    private static func addAssociatedData(_ data: [UInt8], to context: OpaquePointer, encrypt: Bool, operation: String) throws {
        guard !data.isEmpty else { return }
        var ignored: Int32 = 0
        let ok = encrypt
            ? EVP_EncryptUpdate(context, nil, &ignored, data, Int32(data.count))
            : EVP_DecryptUpdate(context, nil, &ignored, data, Int32(data.count))
        guard ok == 1 else { throw CryptoError(openSSLOperation: operation) }
    }
}

extension SecretBox: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never shows the key.
    public var description: String { "SecretBox(key: <redacted>)" }
    /// Never shows the key.
    public var debugDescription: String { description }
    /// Hides the key from `dump` and other reflection.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
