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
        let whole = bytes.count / 3 * 3
        let remaining = bytes.count - whole
        let count = whole / 3 * 4 + (remaining == 0 ? 0 : padded ? 4 : remaining + 1)
        return String(unsafeUninitializedCapacity: count) { output in
            bytes.withUnsafeBufferPointer { input in
                table.withUnsafeBufferPointer { table in
                    func character(_ group: UInt32, _ shift: UInt32) -> UInt8 { table[Int(group >> shift & 0x3F)] }
                    var i = 0, o = 0
                    while i < whole {
                        let group = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        output[o] = character(group, 18)
                        output[o + 1] = character(group, 12)
                        output[o + 2] = character(group, 6)
                        output[o + 3] = character(group, 0)
                        i += 3
                        o += 4
                    }
                    guard remaining > 0 else { return }
                    let group = UInt32(input[i]) << 16 | (remaining == 2 ? UInt32(input[i + 1]) << 8 : 0)
                    output[o] = character(group, 18)
                    output[o + 1] = character(group, 12)
                    if remaining == 2 { output[o + 2] = character(group, 6) }
                    if padded {
                        if remaining == 1 { output[o + 2] = UInt8(ascii: "=") }
                        output[o + 3] = UInt8(ascii: "=")
                    }
                }
            }
            return count
        }
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
        var end = characters.count
        var paddingCount = 0
        while end > 0, characters[end - 1] == UInt8(ascii: "=") {
            end -= 1
            paddingCount += 1
        }
        if paddingCount > 0 {
            // Padding must complete the final quantum exactly: 2 characters + "==", or 3 + "=".
            guard end % 4 != 0, end % 4 + paddingCount == 4 else { return nil }
        }
        // A character outside both alphabets sets both alphabet bits, so one test rejects it and mixed alphabets.
        guard let (bytes, seen) = decodeQuanta(characters, count: end), seen & 0xC0 != 0xC0 else { return nil }
        return bytes
    }

    /// For each byte: its 6-bit value, with 0x40 added for a character only the standard alphabet has (`+ /`) and
    /// 0x80 for one only the URL-safe alphabet has (`- _`); 0xFF for any other byte (both bits set).
    static let decodeTable: [UInt8] = (0...255).map { byte -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt8(byte) - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt8(byte) - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62 | 0x40
        case UInt8(ascii: "/"): 63 | 0x40
        case UInt8(ascii: "-"): 62 | 0x80
        case UInt8(ascii: "_"): 63 | 0x80
        default: 0xFF
        }
    }

    /// Decodes the first `count` characters (no padding among them) in one pass: the bytes, and the OR of the
    /// characters' `decodeTable` entries (the caller judges the alphabet from it). Nil for a length no encoding
    /// produces (4n+1) or non-zero unused bits in the last character.
    static func decodeQuanta(_ characters: [UInt8], count: Int) -> (bytes: [UInt8], seen: UInt8)? {
        let remainder = count % 4
        guard remainder != 1, count <= characters.count else { return nil }
        let outputCount = count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
        var seen: UInt8 = 0
        var unusedBits: UInt8 = 0
        let bytes = characters.withUnsafeBufferPointer { input in
            decodeTable.withUnsafeBufferPointer { table in
                [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
                    var i = 0, o = 0
                    while i + 4 <= count {
                        let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                        let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                        seen |= a | b | c | d
                        let group = UInt32(a & 0x3F) << 18 | UInt32(b & 0x3F) << 12 | UInt32(c & 0x3F) << 6 | UInt32(d & 0x3F)
                        output[o] = UInt8(truncatingIfNeeded: group >> 16)
                        output[o + 1] = UInt8(truncatingIfNeeded: group >> 8)
                        output[o + 2] = UInt8(truncatingIfNeeded: group)
                        i += 4
                        o += 3
                    }
                    if remainder >= 2 {
                        let a = table[Int(input[i])] , b = table[Int(input[i + 1])]
                        seen |= a | b
                        output[o] = (a & 0x3F) << 2 | (b & 0x3F) >> 4
                        if remainder == 3 {
                            let c = table[Int(input[i + 2])]
                            seen |= c
                            output[o + 1] = (b & 0x3F) << 4 | (c & 0x3F) >> 2
                            unusedBits = c & 0x03
                        } else {
                            unusedBits = b & 0x0F
                        }
                    }
                    initialized = outputCount
                }
            }
        }
        guard unusedBits == 0 else { return nil }
        return (bytes, seen)
    }
}
