import JSON

/// An OAuth 2.0 access token obtained for a service account, and until when to use it. Secret: its description
/// never shows the value.
struct ServiceAccountToken: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// How long before Google's expiry the token stops being used, so that it never expires in flight.
    static let safetyMargin: Int64 = 60
    /// The longest lifetime believed from a token response (Google's are one hour).
    static let maxLifetime: Int64 = 24 * 3600
    /// The longest access token accepted (Google's are a few hundred bytes).
    static let maxLength = 4096

    /// The bearer token. Secret.
    let value: String
    /// Unix seconds after which it is not used (Google's expiry minus ``safetyMargin``).
    let usableUntil: Int64

    /// Whether it may still be sent at `now`.
    func isUsable(at now: Int64) -> Bool { now < usableUntil }

    /// Reads the token endpoint's answer (RFC 6749 §5.1): `access_token` (visible ASCII, as it goes into a header)
    /// and `expires_in` (seconds, 1 to a day).
    ///
    /// - Throws: ``GoogleDecodeError/googleUnreachable(_:)`` when the answer is not such an object.
    init(response body: [UInt8], receivedAt now: Int64) throws(GoogleDecodeError) {
        guard let object = try? JSONParser.parse(body) else {
            throw .googleUnreachable("the token endpoint's answer is not JSON")
        }
        guard let value = object["access_token"]?.string, !value.isEmpty, value.utf8.count <= Self.maxLength,
              value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .googleUnreachable("the token endpoint's answer has no usable access_token")
        }
        guard let lifetime = object["expires_in"]?.integer, lifetime > 0 else {
            throw .googleUnreachable("the token endpoint's answer has no expires_in")
        }
        self.value = value
        usableUntil = now + min(Int64(lifetime), Self.maxLifetime) - Self.safetyMargin
    }

    /// Never shows the token.
    var description: String { "ServiceAccountToken(<redacted>, usable until \(usableUntil))" }
    /// Hides the token from `dump` and other reflection.
    var customMirror: Mirror { Mirror(self, children: [:]) }
}
