/// Hexadecimal text for bytes, optionally with a separator between bytes ("AB:CD:EF" fingerprints).
public enum Hex {
    private static let lowerDigits = Array("0123456789abcdef".utf8)
    private static let upperDigits = Array("0123456789ABCDEF".utf8)

    /// Encodes `bytes` as two hex digits each, lowercase unless `uppercase`, with `separator` (if any) between
    /// every pair: `encode([0xAB, 0xCD], uppercase: true, separator: ":")` is `"AB:CD"`.
    public static func encode(_ bytes: [UInt8], uppercase: Bool = false, separator: Character? = nil) -> String {
        let digits = uppercase ? upperDigits : lowerDigits
        let separatorBytes = separator.map { Array(String($0).utf8) } ?? []
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * (2 + separatorBytes.count))
        for (index, byte) in bytes.enumerated() {
            if index > 0 { output.append(contentsOf: separatorBytes) }
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes hex text in any case: either plain digit pairs ("abCD01") or pairs with a ':' between every
    /// two ("AB:cd:01"). The empty string decodes to no bytes.
    ///
    /// Returns nil for an odd number of digits, any other character (including whitespace and "0x"), a leading,
    /// trailing or doubled ':', or separators between some pairs but not all.
    public static func decode(_ string: String) -> [UInt8]? {
        let characters = Array(string.utf8)
        if characters.isEmpty { return [] }
        let separated = characters.count > 2 && characters[2] == UInt8(ascii: ":")
        let stride = separated ? 3 : 2
        // Separated text is n pairs and n - 1 colons: 3n - 1 characters.
        if separated ? (characters.count + 1) % 3 != 0 : characters.count % 2 != 0 { return nil }
        var output: [UInt8] = []
        output.reserveCapacity((characters.count + 1) / stride)
        var index = 0
        while index < characters.count {
            if separated && index > 0 {
                guard characters[index - 1] == UInt8(ascii: ":") else { return nil }
            }
            guard let high = value(of: characters[index]), let low = value(of: characters[index + 1]) else {
                return nil
            }
            output.append(high << 4 | low)
            index += stride
        }
        return output
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
