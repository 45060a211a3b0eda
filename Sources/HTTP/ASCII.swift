/// Byte classes from RFC 9110 §5.6 used by the parser and the serializer.
enum ASCII {
    // Computed, not stored: a stored static is reached through a lazy-initialization check on every use.
    @inline(__always) static var cr: UInt8 { 13 }
    @inline(__always) static var lf: UInt8 { 10 }
    @inline(__always) static var space: UInt8 { 32 }
    @inline(__always) static var tab: UInt8 { 9 }
    @inline(__always) static var colon: UInt8 { 58 }

    /// tchar (RFC 9110 §5.6.2): the characters of a method or a field name —
    /// ALPHA, DIGIT and ! # $ % & ' * + - . ^ _ ` | ~ — as two 64-bit masks over the ASCII range.
    @inline(__always)
    static func isTokenChar(_ b: UInt8) -> Bool {
        if b < 64 { return (0x03FF_6CFA_0000_0000 as UInt64) >> UInt64(b) & 1 == 1 }
        if b < 128 { return (0x57FF_FFFF_C7FF_FFFE as UInt64) >> UInt64(b - 64) & 1 == 1 }
        return false
    }

    /// A byte allowed inside a field value (RFC 9110 §5.5): VCHAR, obs-text, SP and HTAB; no other control.
    @inline(__always)
    static func isFieldValueChar(_ b: UInt8) -> Bool {
        b == tab || (b >= 0x20 && b != 0x7F)
    }

    /// Whether every byte of `bytes` is a tchar.
    static func allTokenChars(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        for b in bytes where !isTokenChar(b) { return false }
        return true
    }

    /// Whether every byte of `bytes` may appear in a field value.
    static func allFieldValueChars(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        for b in bytes where !isFieldValueChar(b) { return false }
        return true
    }

    /// Optional whitespace (OWS): SP or HTAB.
    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool { b == space || b == tab }

    /// ASCII lower-case of a byte.
    @inline(__always)
    static func lower(_ b: UInt8) -> UInt8 { (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }

    /// Whether `bytes` equals the lower-case ASCII `lowercased`, ignoring ASCII case.
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence, _ lowercased: StaticString) -> Bool {
        guard bytes.count == lowercased.utf8CodeUnitCount else { return false }
        return lowercased.withUTF8Buffer { expected in
            var i = bytes.startIndex
            for e in expected {
                if lower(bytes[i]) != e { return false }
                i += 1
            }
            return true
        }
    }

    /// Whether the string equals the lower-case ASCII `lowercased`, ignoring ASCII case.
    static func equalsIgnoringCase(_ s: Substring, _ lowercased: String) -> Bool {
        let a = s.utf8, b = lowercased.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where lower(x) != y { return false }
        return true
    }

    /// The comma-separated elements of field values (RFC 9110 §5.6.1), OWS trimmed, empty elements dropped.
    static func listElements(_ values: [String]) -> [Substring] {
        var out: [Substring] = []
        for value in values {
            for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = trimWhitespace(element)
                if !trimmed.isEmpty { out.append(trimmed) }
            }
        }
        return out
    }

    /// `s` without leading and trailing SP/HTAB.
    static func trimWhitespace(_ s: Substring) -> Substring {
        var start = s.startIndex, end = s.endIndex
        while start < end, s[start] == " " || s[start] == "\t" { start = s.index(after: start) }
        while end > start {
            let before = s.index(before: end)
            guard s[before] == " " || s[before] == "\t" else { break }
            end = before
        }
        return s[start..<end]
    }
}
