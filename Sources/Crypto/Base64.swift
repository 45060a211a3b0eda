/// Base64 (RFC 4648 §4) and its URL- and filename-safe alphabet (§5).
public enum Base64 {
    /// Which 64-character alphabet to encode with.
    public enum Alphabet: Sendable {
        /// `A–Z a–z 0–9 + /` (RFC 4648 §4).
        case standard
        /// `A–Z a–z 0–9 - _` (RFC 4648 §5), for URLs, cookies and file names.
        case urlSafe
    }

    private static let standardTable = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafeTable = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes `bytes` with `alphabet`, with `=` padding to a multiple of four characters when `padded`.
    public static func encode(_ bytes: [UInt8], alphabet: Alphabet = .standard, padded: Bool = true) -> String {
        let table = alphabet == .standard ? standardTable : urlSafeTable
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(table[Int(group >> UInt32(shift) & 0x3F)]) }
            index += 3
        }
        let remaining = bytes.count - index
        if remaining == 1 {
            let group = UInt32(bytes[index]) << 16
            output.append(table[Int(group >> 18 & 0x3F)])
            output.append(table[Int(group >> 12 & 0x3F)])
            if padded { output.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")]) }
        } else if remaining == 2 {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(table[Int(group >> 18 & 0x3F)])
            output.append(table[Int(group >> 12 & 0x3F)])
            output.append(table[Int(group >> 6 & 0x3F)])
            if padded { output.append(UInt8(ascii: "=")) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes Base64 text in either alphabet, strictly.
    ///
    /// Accepted: the standard alphabet or the URL-safe one (not both in one string), either without padding or
    /// with exactly the padding RFC 4648 prescribes. The empty string decodes to no bytes.
    /// Rejected (nil): whitespace or line breaks, any other character, mixed alphabets, padding that is partial,
    /// excessive or not at the end, a length no encoding produces (4n+1 characters), and non-zero unused bits
    /// in the last character (RFC 4648 §3.5 lets decoders reject these; we do, so every byte string has
    /// exactly one accepted spelling per alphabet and padding choice).
    public static func decode(_ string: String) -> [UInt8]? {
        decode(characters: Array(string.utf8))
    }

    /// `decode(_:)` over the text's bytes.
    static func decode(characters: [UInt8]) -> [UInt8]? {
        var characters = characters
        var paddingCount = 0
        while characters.last == UInt8(ascii: "=") {
            characters.removeLast()
            paddingCount += 1
        }
        let remainder = characters.count % 4
        if remainder == 1 { return nil }
        if paddingCount > 0 {
            // Padding must complete the final quantum exactly: 2 characters + "==", or 3 + "=".
            guard remainder != 0, remainder + paddingCount == 4 else { return nil }
        }
        var sawStandard = false
        var sawURLSafe = false
        var values: [UInt8] = []
        values.reserveCapacity(characters.count)
        for character in characters {
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(character - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(character - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "+"): sawStandard = true; values.append(62)
            case UInt8(ascii: "/"): sawStandard = true; values.append(63)
            case UInt8(ascii: "-"): sawURLSafe = true; values.append(62)
            case UInt8(ascii: "_"): sawURLSafe = true; values.append(63)
            default: return nil
            }
        }
        if sawStandard && sawURLSafe { return nil }

        var output: [UInt8] = []
        output.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let group = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
                | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            output.append(UInt8(truncatingIfNeeded: group >> 8))
            output.append(UInt8(truncatingIfNeeded: group))
            index += 4
        }
        switch values.count - index {
        case 2:
            guard values[index + 1] & 0x0F == 0 else { return nil }
            output.append(values[index] << 2 | values[index + 1] >> 4)
        case 3:
            guard values[index + 2] & 0x03 == 0 else { return nil }
            output.append(values[index] << 2 | values[index + 1] >> 4)
            output.append(values[index + 1] << 4 | values[index + 2] >> 2)
        default:
            break
        }
        return output
    }
}
