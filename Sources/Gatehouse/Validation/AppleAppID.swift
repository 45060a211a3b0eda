import Crypto

/// Apple app ids as App Attest knows them: `TEAMID.bundleId`, whose SHA-256 is the attestation's rpId hash.
/// The team id (or App ID prefix) is exactly 10 characters `[A-Z0-9]`; the bundle id is reverse-DNS of letters,
/// digits, `-` and `.` (Apple: CFBundleIdentifier), at most 155 characters.
public enum AppleAppID {
    public static let expectation =
        "TEAMID.bundleId: a 10-character team id of A–Z and 0–9, a dot, then a bundle id of letters, digits, '-' and '.' (e.g. ABCDE12345.com.example.app)"

    public static func isValid(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count >= 12, bytes.count <= 166, bytes[10] == UInt8(ascii: ".") else { return false }
        for b in bytes[0..<10] where !((b >= 65 && b <= 90) || (b >= 48 && b <= 57)) { return false }
        let bundle = bytes[11...]
        guard let first = bundle.first, first != UInt8(ascii: "."), bundle.last != UInt8(ascii: ".") else { return false }
        var previousDot = false
        for b in bundle {
            let isDot = b == UInt8(ascii: ".")
            let ok = (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == UInt8(ascii: "-") || isDot
            if !ok || (isDot && previousDot) { return false }
            previousDot = isDot
        }
        return true
    }

    /// The team id (App ID prefix) part.
    public static func teamID(_ id: String) -> String { String(id.prefix(10)) }

    /// The bundle id part.
    public static func bundleID(_ id: String) -> String { String(id.dropFirst(11)) }

    /// App Attest's rpId hash for `id`: SHA-256 of the whole `TEAMID.bundleId` string, in lowercase hex. An
    /// attestation's authenticator data must carry exactly these 32 bytes for the app id to match.
    public static func rpIDHash(_ id: String) -> String {
        Hex.encode(SHA256.hash(id))
    }
}
