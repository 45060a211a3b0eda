import Foundation
import Crypto

/// SHA-256 digests of Android signing certificates, as Play Console shows them (App integrity → App signing).
/// Accepted as hex (with or without colons, any case) or base64 (standard or URL-safe, with or without padding) of
/// exactly 32 bytes; kept as bytes; shown as uppercase colon hex.
public enum CertificateDigest {
    public static let expectation =
        "a SHA-256 certificate digest of exactly 32 bytes: 64 hex digits (colons between bytes allowed) or base64 / base64url"

    /// The 32 bytes of `text`, or nil when it is not a digest in any accepted encoding.
    public static func parse(_ text: String) -> [UInt8]? {
        let edges = [text.utf8.first, text.utf8.last]
        let trimmed = edges.contains { $0 == 0x20 || $0 == 0x09 } ? text.trimmingCharacters(in: .whitespaces) : text
        if let bytes = Hex.decode(trimmed), bytes.count == 32 { return bytes }
        if let bytes = Base64.decode(trimmed), bytes.count == 32 { return bytes }
        return nil
    }

    /// The display form: uppercase hex with a colon between bytes.
    public static func format(_ bytes: [UInt8]) -> String {
        Hex.encode(bytes, uppercase: true, separator: ":")
    }
}
