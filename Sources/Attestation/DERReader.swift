/// A strict reader of DER tag-length-value triples (X.690 §8.1, §10.1): single-byte tags, definite lengths in the
/// shortest form, no indefinite length.
struct DERReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { bytes.isEmpty }

    /// The contents of the next element if its tag is `tag` and its length is well formed; nil otherwise.
    mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
        guard let first = bytes.first, first == tag else { return nil }
        var cursor = bytes.index(after: bytes.startIndex)
        guard cursor < bytes.endIndex else { return nil }
        let lengthByte = bytes[cursor]
        cursor += 1
        var length: Int
        if lengthByte < 0x80 {
            length = Int(lengthByte)
        } else {
            // Long form: 1 or 2 length bytes are plenty here; the first may not be 0 and the value must need them.
            let count = Int(lengthByte & 0x7F)
            guard count == 1 || count == 2, bytes.endIndex - cursor >= count, bytes[cursor] != 0 else { return nil }
            length = 0
            for offset in 0..<count { length = length << 8 | Int(bytes[cursor + offset]) }
            cursor += count
            guard length >= 0x80 else { return nil }
        }
        guard bytes.endIndex - cursor >= length else { return nil }
        let contents = bytes[cursor..<(cursor + length)]
        bytes = bytes[(cursor + length)...]
        return contents
    }
}
