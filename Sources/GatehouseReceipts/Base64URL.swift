import Crypto

/// Base64url without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2), read strictly.
enum Base64URL {
    /// Encodes `bytes` in the URL-safe alphabet without padding.
    static func encode(_ bytes: [UInt8]) -> String {
        Base64.encode(bytes, alphabet: .urlSafe, padded: false)
    }

    /// Decodes unpadded base64url; nil for any other character (`+`, `/`, `=`, whitespace), an impossible length or
    /// non-zero unused bits.
    static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        Base64.decodeURLSafeUnpadded(text.utf8)
    }
}
