import Crypto

/// An app's Play Integrity response keys from Play Console (App integrity → Response encryption): the AES-256
/// decryption key and the EC P-256 verification key. Secret (the decryption key): never described.
public struct PlayIntegrityKeys: Sendable {
    /// The 32-byte AES key that unwraps each token's content-encryption key (`A256KW`).
    public let decryptionKey: [UInt8]
    /// The key whose ES256 signature the token's JWS carries.
    public let verificationKey: ECPublicKey

    /// Keys from bytes.
    ///
    /// - Throws: ``PlayIntegrityKeyError`` naming `decryptionKey` when it is not 32 bytes.
    public init(decryptionKey: [UInt8], verificationKey: ECPublicKey) throws(PlayIntegrityKeyError) {
        guard decryptionKey.count == AESKeyWrap.keyLength else {
            throw PlayIntegrityKeyError(field: .decryptionKey, message: "expected the base64 of 32 bytes (an AES-256 key), got \(decryptionKey.count) bytes")
        }
        self.decryptionKey = decryptionKey
        self.verificationKey = verificationKey
    }

    /// Keys as Play Console hands them out: the decryption key as base64 of 32 bytes, the verification key as base64
    /// of a DER P-256 SubjectPublicKeyInfo. Either base64 alphabet, padded or not; white space (line breaks of a pasted key) is ignored.
    ///
    /// - Throws: ``PlayIntegrityKeyError`` naming the first field that cannot be such a key (the message never
    ///   quotes the value).
    public init(decryptionKeyBase64: String, verificationKeyBase64: String) throws(PlayIntegrityKeyError) {
        guard let decryption = Base64.decode(Self.trimmed(decryptionKeyBase64)) else {
            throw PlayIntegrityKeyError(field: .decryptionKey, message: "expected base64 (of 32 bytes, an AES-256 key)")
        }
        guard let spki = Base64.decode(Self.trimmed(verificationKeyBase64)) else {
            throw PlayIntegrityKeyError(field: .verificationKey, message: "expected base64 (of a DER P-256 SubjectPublicKeyInfo)")
        }
        let verification: ECPublicKey
        do {
            verification = try ECPublicKey(derSubjectPublicKeyInfo: spki)
        } catch {
            throw PlayIntegrityKeyError(field: .verificationKey, message: "expected the base64 of a DER P-256 SubjectPublicKeyInfo (\((error as? CryptoError)?.reason ?? "unreadable"))")
        }
        try self.init(decryptionKey: decryption, verificationKey: verification)
    }

    private static func trimmed(_ text: String) -> String {
        String(text.unicodeScalars.filter { !($0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t") })
    }
}

extension PlayIntegrityKeys: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never shows the decryption key.
    public var description: String { "PlayIntegrityKeys(decryptionKey: <redacted>)" }
    /// Never shows the decryption key.
    public var debugDescription: String { description }
    /// Hides the decryption key from `dump` and other reflection.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
