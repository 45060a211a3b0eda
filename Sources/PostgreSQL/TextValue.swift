import CLibPQ
import Storage

/// A result value in PostgreSQL's text format (https://www.postgresql.org/docs/15/datatype.html), read into the
/// store's values by column type: integers (and integral `numeric`, which `SUM` of `bigint` gives) and booleans as
/// integers, floats as reals, `bytea` from its hex form, everything else as text.
enum TextValue {
    static func decode(_ bytes: UnsafeRawBufferPointer, type: Oid) -> SQLValue {
        let text = String(decoding: bytes, as: UTF8.self)
        switch type {
        case 20, 21, 23, 26:  // int8, int2, int4, oid
            return Int64(text).map { .integer($0) } ?? .text(text)
        case 16:  // bool
            return .integer(text == "t" ? 1 : 0)
        case 1700:  // numeric
            if let integer = Int64(text) { return .integer(integer) }
            return Double(text).map { .real($0) } ?? .text(text)
        case 700, 701:  // float4, float8
            return Double(text).map { .real($0) } ?? .text(text)
        case 17:  // bytea, hex format: \x0a1b…
            return hex(bytes).map { .blob($0) } ?? .text(text)
        default:
            return .text(text)
        }
    }

    /// The bytes of `\x` followed by pairs of hex digits; nil for anything else.
    static func hex(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}
