import Crypto

/// The canonical string of a signed request and what is derived from it (docs/device-api.md "Assessment"): five lines
/// joined by `\n` — `gatehouse-v2`, the platform, the timestamp in decimal, the nonce, and `signed:` + the lowercase
/// hex SHA-256 of the `signed` text's bytes. The phone signs it with HMAC-SHA256 keyed by the public API key; Play
/// Integrity's requestHash is its hex SHA-256; App Attest's clientData is the string itself.
public enum CanonicalRequest {
    /// The wire version line.
    public static let version = "gatehouse-v2"

    /// The canonical string.
    public static func text(platform: String, timestamp: Int64, nonce: String, signed: String) -> String {
        [version, platform, String(timestamp), nonce, "signed:" + Hex.encode(SHA256.hash(Array(signed.utf8)))].joined(separator: "\n")
    }

    /// `HMAC-SHA256(key: apiKey's UTF-8 bytes, canonical)`: what `request.signature` must decode to.
    public static func signature(canonical: String, apiKey: String) -> [UInt8] {
        HMACSHA256.authenticate(Array(canonical.utf8), key: Array(apiKey.utf8))
    }

    /// Whether `signature` is the request's HMAC, compared in constant time.
    public static func verifies(_ signature: [UInt8], canonical: String, apiKey: String) -> Bool {
        constantTimeEquals(signature, self.signature(canonical: canonical, apiKey: apiKey))
    }

    /// The Play Integrity requestHash a request must carry: lowercase hex SHA-256 of the canonical string.
    public static func requestHash(canonical: String) -> String {
        Hex.encode(SHA256.hash(Array(canonical.utf8)))
    }
}
