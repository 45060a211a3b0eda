import Attestation

/// A small CBOR encoder (RFC 8949, preferred integer and length encodings, definite lengths) for building App Attest
/// objects in tests. It writes what ``CBOR`` holds; floats are written as doubles.
public enum CBOREncoder {
    /// The encoding of `item`.
    public static func encode(_ item: CBOR) -> [UInt8] {
        var out: [UInt8] = []
        write(item, into: &out)
        return out
    }

    /// A head: major type and argument in the shortest form (§3).
    public static func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        let type = major << 5
        switch argument {
        case 0..<24: return [type | UInt8(argument)]
        case 24...0xFF: return [type | 24, UInt8(argument)]
        case 0x100...0xFFFF: return [type | 25] + bigEndian(argument, 2)
        case 0x1_0000...0xFFFF_FFFF: return [type | 26] + bigEndian(argument, 4)
        default: return [type | 27] + bigEndian(argument, 8)
        }
    }

    private static func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private static func write(_ item: CBOR, into out: inout [UInt8]) {
        switch item {
        case .unsigned(let n): out += head(0, n)
        case .negative(let n): out += head(1, n)
        case .bytes(let bytes):
            out += head(2, UInt64(bytes.count))
            out += bytes
        case .text(let text):
            out += head(3, UInt64(text.utf8.count))
            out += Array(text.utf8)
        case .array(let elements):
            out += head(4, UInt64(elements.count))
            for element in elements { write(element, into: &out) }
        case .map(let pairs):
            out += head(5, UInt64(pairs.count))
            for pair in pairs {
                write(pair.key, into: &out)
                write(pair.value, into: &out)
            }
        case .bool(let value): out.append(value ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .undefined: out.append(0xF7)
        case .float(let value): out += [0xFB] + bigEndian(value.bitPattern, 8)
        }
    }
}
