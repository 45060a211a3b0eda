import Crypto

/// The Standard Webhooks signature (docs/device-api.md "Delivery"): `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
/// keyed with the secret's bytes (the base64 after `whsec_`), one per live secret, space-separated during a rotation.
public enum WebhookSignature {
    /// The prefix of a secret as it is shown.
    public static let secretPrefix = "whsec_"

    /// A new secret: `whsec_` and base64 of 32 random bytes.
    /// - Throws: when the system's random source fails.
    public static func newSecret() throws -> String {
        secretPrefix + Base64.encode(try SecureRandom.bytes(32))
    }

    /// The key bytes of a secret as shown (nil when it is not one).
    public static func key(_ secret: String) -> [UInt8]? {
        guard secret.hasPrefix(secretPrefix) else { return nil }
        return Base64.decode(String(secret.dropFirst(secretPrefix.count)))
    }

    /// The `webhook-signature` header value for `body` sent as event `id` at `timestamp` (unix seconds).
    public static func header(id: String, timestamp: Int64, body: [UInt8], keys: [[UInt8]]) -> String {
        let signed = Array("\(id).\(timestamp).".utf8) + body
        return keys.map { "v1," + Base64.encode(HMACSHA256.authenticate(signed, key: $0)) }.joined(separator: " ")
    }
}
