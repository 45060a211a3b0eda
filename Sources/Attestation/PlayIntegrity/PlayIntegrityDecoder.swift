import Crypto
import JSON

/// Opens Play Integrity tokens with an app's local keys: a JWE compact serialization (`alg` `A256KW`, `enc`
/// `A256GCM`, RFC 7516/7518) whose plaintext is a JWS compact serialization (`ES256`, raw R‖S, RFC 7515) of the
/// verdict payload. Nothing else is accepted; every failure says which layer failed (docs/device-api.md
/// "Play Integrity"). Pure and bounded; construct once, use from many threads.
public struct PlayIntegrityDecoder: Sendable {
    /// The app's response keys.
    public let keys: PlayIntegrityKeys
    /// Bounds on the token.
    public let limits: PlayIntegrityLimits
    /// A decoder for `keys`, within `limits`.
    public init(keys: PlayIntegrityKeys, limits: PlayIntegrityLimits = PlayIntegrityLimits()) {
        self.keys = keys
        self.limits = limits
    }

    /// Decrypts and verifies `token`, returning the verdict payload (a JSON object, Google's `tokenPayloadExternal`).
    ///
    /// - Throws: ``PlayIntegrityDecodeError`` at the layer that failed.
    public func decode(_ token: [UInt8]) throws(PlayIntegrityDecodeError) -> JSON {
        try verify(decrypt(token))
    }

    /// ``decode(_:)`` of a token's text.
    public func decode(_ token: String) throws(PlayIntegrityDecodeError) -> JSON {
        try decode(Array(token.utf8))
    }

    /// The JWE layer alone: checks the shape, header and sizes, unwraps the content key with the decryption key and
    /// decrypts with AES-256-GCM (AAD: the protected header's base64url text). Returns the plaintext, the JWS.
    /// Used alone to count which stored tokens candidate keys decrypt.
    ///
    /// - Throws: ``PlayIntegrityDecodeError`` with stage `decryption`.
    public func decrypt(_ token: [UInt8]) throws(PlayIntegrityDecodeError) -> [UInt8] {
        func fail(_ detail: String) -> PlayIntegrityDecodeError { PlayIntegrityDecodeError(.decryption, detail) }
        guard !token.isEmpty else { throw fail("token is empty") }
        guard token.count <= limits.maxTokenBytes else { throw fail("token is over \(limits.maxTokenBytes) bytes") }
        guard let parts = JOSECompact.parts(token[...], count: 5) else {
            throw fail("token is not a JWE compact serialization (5 parts)")
        }
        let members = try JOSECompact.header(parts[0], maxBytes: limits.maxHeaderBytes, algorithm: "A256KW", name: "JWE", stage: .decryption)
        guard members.first(where: { $0.key == "enc" })?.value.string == "A256GCM" else {
            throw fail("JWE enc is not A256GCM, the only one accepted")
        }
        guard !members.contains(where: { $0.key == "zip" }) else { throw fail("JWE header has zip: compression is not accepted") }
        guard let wrappedKey = JOSECompact.base64URL(parts[1], maxBytes: 40), wrappedKey.count == 40 else {
            throw fail("JWE encrypted key is not 40 bytes (an A256KW-wrapped 256-bit key)")
        }
        guard let iv = JOSECompact.base64URL(parts[2], maxBytes: AES256GCM.ivLength), iv.count == AES256GCM.ivLength else {
            throw fail("JWE IV is not \(AES256GCM.ivLength) bytes")
        }
        guard let ciphertext = JOSECompact.base64URL(parts[3], maxBytes: limits.maxTokenBytes), !ciphertext.isEmpty else {
            throw fail("JWE ciphertext is empty or not base64url")
        }
        guard let tag = JOSECompact.base64URL(parts[4], maxBytes: AES256GCM.tagLength), tag.count == AES256GCM.tagLength else {
            throw fail("JWE tag is not \(AES256GCM.tagLength) bytes")
        }
        let contentKey: [UInt8]
        do {
            contentKey = try AESKeyWrap.unwrap(wrappedKey, key: keys.decryptionKey)
        } catch {
            throw fail("the content key does not unwrap with the decryption key")
        }
        guard contentKey.count == AES256GCM.keyLength else { throw fail("the content key is not 32 bytes") }
        do {
            return try AES256GCM.decrypt(ciphertext, key: contentKey, iv: iv, associatedData: Array(parts[0]), tag: tag)
        } catch {
            throw fail("the content does not authenticate (AES-256-GCM)")
        }
    }

    /// The JWS layer alone: checks the shape, header (`ES256`) and sizes, verifies the raw R‖S signature over
    /// `header.payload` with the verification key, and returns the payload, which must be a JSON object.
    ///
    /// - Throws: ``PlayIntegrityDecodeError`` with stage `signature`.
    public func verify(_ jws: [UInt8]) throws(PlayIntegrityDecodeError) -> JSON {
        func fail(_ detail: String) -> PlayIntegrityDecodeError { PlayIntegrityDecodeError(.signature, detail) }
        guard jws.count <= limits.maxTokenBytes else { throw fail("JWS is over \(limits.maxTokenBytes) bytes") }
        guard let parts = JOSECompact.parts(jws[...], count: 3) else {
            throw fail("plaintext is not a JWS compact serialization (3 parts)")
        }
        _ = try JOSECompact.header(parts[0], maxBytes: limits.maxHeaderBytes, algorithm: "ES256", name: "JWS", stage: .signature)
        guard let signature = JOSECompact.base64URL(parts[2], maxBytes: 64), signature.count == 64 else {
            throw fail("JWS signature is not 64 bytes (ES256 R‖S)")
        }
        let signingInput = Array(jws[jws.startIndex..<parts[1].endIndex])
        guard keys.verificationKey.isValidSignature(signature, format: .raw, for: signingInput) else {
            throw fail("the signature does not verify with the verification key")
        }
        guard let payload = JOSECompact.base64URL(parts[1], maxBytes: limits.maxTokenBytes) else {
            throw fail("JWS payload is not base64url")
        }
        guard let json = try? JSONParser.parse(payload), json.members != nil else {
            throw fail("JWS payload is not a JSON object")
        }
        return json
    }
}
