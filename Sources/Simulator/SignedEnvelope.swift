import Crypto
import JSON

/// A signed request as a phone's SDK builds it for `POST /api/v4/assess` (docs/device-api.md "Assessment"): the `signed`
/// text, the canonical string over it, its HMAC under the public key, and the envelope around them. Written from the
/// contract alone (no server code), so tests that use it check the server against the contract.
public struct SignedEnvelope: Sendable {
    public var apiKey: String
    /// `android` or `ios`.
    public var platform: String
    /// Unix milliseconds.
    public var timestamp: Int64
    /// Base64url (no padding) of random bytes.
    public var nonce: String
    /// The `signed` text, exactly as sent.
    public var signed: String

    /// An envelope around `signed` made now with a fresh 16-byte nonce.
    ///
    /// - Throws: when the system's random source fails.
    public init(apiKey: String, platform: String, signed: String, timestamp: Int64, nonce: String? = nil) throws {
        self.apiKey = apiKey
        self.platform = platform
        self.signed = signed
        self.timestamp = timestamp
        self.nonce = try nonce ?? Base64.encode(SecureRandom.bytes(16), alphabet: .urlSafe, padded: false)
    }

    /// The `signed` text of the usual fields, members in this order: `app {id, signatureDigest}`, `device {id}`,
    /// `receiptKey` (base64 SPKI DER).
    public static func signedText(appID: String, signatureDigest: String? = nil, deviceID: String? = nil, receiptKey: ECPublicKey? = nil) -> String {
        var app: [JSON.Member] = [JSON.Member("id", .string(appID))]
        if let signatureDigest { app.append(JSON.Member("signatureDigest", .string(signatureDigest))) }
        var members: [JSON.Member] = [JSON.Member("app", .object(app))]
        if let deviceID { members.append(JSON.Member("device", .object([JSON.Member("id", .string(deviceID))]))) }
        if let receiptKey { members.append(JSON.Member("receiptKey", .string(Base64.encode(receiptKey.derSubjectPublicKeyInfo)))) }
        return String(decoding: JSON.object(members).serialized(), as: UTF8.self)
    }

    /// `gatehouse-v2\n<platform>\n<timestamp>\n<nonce>\nsigned:<hex SHA-256 of signed>`.
    public var canonical: String {
        "gatehouse-v2\n\(platform)\n\(timestamp)\n\(nonce)\nsigned:" + Hex.encode(SHA256.hash(Array(signed.utf8)))
    }

    /// base64url(HMAC-SHA256(key: the apiKey's UTF-8 bytes, canonical)).
    public var signature: String {
        Base64.encode(HMACSHA256.authenticate(Array(canonical.utf8), key: Array(apiKey.utf8)), alphabet: .urlSafe, padded: false)
    }

    /// The Play Integrity requestHash bound to this request: lowercase hex SHA-256 of the canonical string.
    public var requestHash: String {
        Hex.encode(SHA256.hash(Array(canonical.utf8)))
    }

    /// The App Attest clientData of this request: the canonical string's bytes.
    public var clientData: [UInt8] { Array(canonical.utf8) }

    /// The envelope as JSON, with `attestation` (nil: none) and the signature given (default: the right one).
    public func json(attestation: JSON? = nil, signature: String? = nil) -> JSON {
        var members: [JSON.Member] = [
            JSON.Member("apiKey", .string(apiKey)),
            JSON.Member("platform", .string(platform)),
            JSON.Member("request", .object([
                JSON.Member("timestamp", .number(Double(timestamp))),
                JSON.Member("nonce", .string(nonce)),
                JSON.Member("signature", .string(signature ?? self.signature)),
            ])),
            JSON.Member("signed", .string(signed)),
        ]
        if let attestation { members.append(JSON.Member("attestation", attestation)) }
        return .object(members)
    }

    /// `{"provider": "play-integrity", "token"}`.
    public static func playIntegrity(_ token: String) -> JSON {
        ["provider": "play-integrity", "token": .string(token)]
    }

    /// `{"provider": "debug", "token"}`: a debug token of the environment in place of a platform attestation.
    public static func debug(_ token: String) -> JSON {
        ["provider": "debug", "token": .string(token)]
    }

    /// `{"provider": "app-attest", "keyId", "token"}` with the key id and the assertion in base64.
    public static func appAttest(keyID: [UInt8], assertion: [UInt8]) -> JSON {
        ["provider": "app-attest", "keyId": .string(Base64.encode(keyID)), "token": .string(Base64.encode(assertion))]
    }
}
