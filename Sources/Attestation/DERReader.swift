/// A strict reader of DER tag-length-value triples (X.690 §8.1, §10.1): definite lengths in the shortest form, no
/// indefinite length; `read(tag:)` for single-byte tags, `readElement()` for any.
struct DERReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { bytes.isEmpty }

    /// The contents of the next element if its tag is `tag` and its length is well formed; nil otherwise.
    mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
        guard let first = bytes.first, first == tag else { return nil }
        return contents(from: bytes.index(after: bytes.startIndex))
    }

    /// The next element whatever its tag: its class and form bits (the first byte's top three), its tag number
    /// (X.690 §8.1.2.4: numbers from 31 in base-128 bytes, minimal, at most 3 of them), and its contents; nil when
    /// malformed.
    mutating func readElement() -> (classAndForm: UInt8, number: Int, contents: ArraySlice<UInt8>)? {
        guard let first = bytes.first else { return nil }
        var cursor = bytes.index(after: bytes.startIndex)
        var number = Int(first & 0x1F)
        if number == 0x1F {
            number = 0
            var count = 0
            while true {
                guard cursor < bytes.endIndex, count < 3 else { return nil }
                let byte = bytes[cursor]
                guard count > 0 || byte != 0x80 else { return nil }
                number = number << 7 | Int(byte & 0x7F)
                cursor += 1
                count += 1
                if byte & 0x80 == 0 { break }
            }
            guard number >= 0x1F else { return nil }
        }
        guard let contents = contents(from: cursor) else { return nil }
        return (first & 0xE0, number, contents)
    }

    /// The contents of the element whose length starts at `start`, consumed with it; nil when malformed.
    private mutating func contents(from start: ArraySlice<UInt8>.Index) -> ArraySlice<UInt8>? {
        var cursor = start
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
