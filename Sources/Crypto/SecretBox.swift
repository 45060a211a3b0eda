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
    static let nonceLength = AES256GCM.ivLength
    /// The GCM tag length in bytes.
    static let tagLength = AES256GCM.tagLength

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
        let (ciphertext, tag) = try AES256GCM.encrypt(plaintext, key: key, iv: nonce, associatedData: associatedData,
                                                      operation: "AES-256-GCM seal")
        var sealed: [UInt8] = [Self.version]
        sealed.reserveCapacity(1 + Self.nonceLength + ciphertext.count + Self.tagLength)
        sealed += nonce
        sealed += ciphertext
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
        let tag = Array(sealed[(sealed.count - Self.tagLength)...])
        return try AES256GCM.decrypt(ciphertext, key: key, iv: nonce, associatedData: associatedData, tag: tag, operation: operation)
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
