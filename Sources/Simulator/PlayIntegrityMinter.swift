import Attestation
import Crypto
import JSON

/// Mints Play Integrity tokens the way Google does (a JWE `A256KW`/`A256GCM` around an `ES256` JWS) with test keys,
/// for the verifier's, the server's and a simulator's tests. Every layer can be built alone or with another header,
/// so tests can also mint what Google never sends.
public struct PlayIntegrityMinter: Sendable {
    /// The JWE protected header Google sends.
    public static let jweHeader = #"{"alg":"A256KW","enc":"A256GCM"}"#
    /// The JWS protected header Google sends.
    public static let jwsHeader = #"{"alg":"ES256"}"#

    /// The app's AES-256 decryption key.
    public let decryptionKey: [UInt8]
    /// The private half of the app's verification key (Google holds it).
    public let signingKey: ECPrivateKey

    /// A minter with fresh random keys.
    ///
    /// - Throws: when key generation fails.
    public static func random() throws -> PlayIntegrityMinter {
        PlayIntegrityMinter(decryptionKey: try SecureRandom.bytes(32), signingKey: try ECPrivateKey.generate())
    }

    /// A minter with given keys.
    public init(decryptionKey: [UInt8], signingKey: ECPrivateKey) {
        self.decryptionKey = decryptionKey
        self.signingKey = signingKey
    }

    /// The keys as the verifier takes them.
    ///
    /// - Throws: when the decryption key is not 32 bytes.
    public func keys() throws -> PlayIntegrityKeys {
        try PlayIntegrityKeys(decryptionKey: decryptionKey, verificationKey: signingKey.publicKey)
    }

    /// The decryption key as Play Console shows it (base64).
    public var decryptionKeyBase64: String { Base64.encode(decryptionKey) }
    /// The verification key as Play Console shows it (base64 of the DER SubjectPublicKeyInfo).
    public var verificationKeyBase64: String { Base64.encode(signingKey.publicKey.derSubjectPublicKeyInfo) }

    /// A token as Google mints it, for `payload`.
    ///
    /// - Throws: when signing or encryption fails.
    public func token(_ payload: JSON) throws -> String {
        try token(payloadBytes: payload.serialized())
    }

    /// A token for raw payload bytes, with the given protected headers (Google's by default).
    ///
    /// - Throws: when signing or encryption fails.
    public func token(payloadBytes: [UInt8], jwsHeader: String = Self.jwsHeader, jweHeader: String = Self.jweHeader) throws -> String {
        try jwe(plaintext: Array(jws(payloadBytes: payloadBytes, header: jwsHeader).utf8), header: jweHeader)
    }

    /// A JWS compact serialization of `payloadBytes` under `header`, signed ES256 (raw R‖S) with the signing key
    /// whatever the header says.
    ///
    /// - Throws: when signing fails.
    public func jws(payloadBytes: [UInt8], header: String = Self.jwsHeader) throws -> String {
        let signingInput = Self.base64URL(Array(header.utf8)) + "." + Self.base64URL(payloadBytes)
        let signature = try signingKey.signature(for: Array(signingInput.utf8), format: .raw)
        return signingInput + "." + Self.base64URL(signature)
    }

    /// A JWE compact serialization of `plaintext` under `header`: a fresh content key wrapped with the decryption
    /// key (A256KW), a fresh IV, AES-256-GCM with the header's base64url text as AAD, whatever the header says.
    ///
    /// - Throws: when encryption fails.
    public func jwe(plaintext: [UInt8], header: String = Self.jweHeader) throws -> String {
        let contentKey = try SecureRandom.bytes(32)
        let iv = try SecureRandom.bytes(12)
        let protected = Self.base64URL(Array(header.utf8))
        let wrapped = try AESKeyWrap.wrap(contentKey, key: decryptionKey)
        let (ciphertext, tag) = try AES256GCM.encrypt(plaintext, key: contentKey, iv: iv, associatedData: Array(protected.utf8))
        return [protected, Self.base64URL(wrapped), Self.base64URL(iv), Self.base64URL(ciphertext), Self.base64URL(tag)]
            .joined(separator: ".")
    }

    /// Base64url without padding (RFC 7515 §2).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Base64.encode(bytes, alphabet: .urlSafe, padded: false)
    }
}
