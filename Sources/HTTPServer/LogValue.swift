/// A value of a log field, written as the matching JSON type.
public enum LogValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    /// A string field from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer field from a literal.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A boolean field from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Appends the UTF-8 JSON form of the value (strings escaped per RFC 8259 §7).
    func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .double(let value): out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value):
            out.append(UInt8(ascii: "\""))
            // Most values (paths, ids, addresses) need no escaping: append them whole.
            if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
                out.append(contentsOf: value.utf8)
                out.append(UInt8(ascii: "\""))
                return
            }
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
                case 0..<0x20, 0x7F:
                    let hex = String(byte, radix: 16)
                    out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                default: out.append(byte)  // UTF-8 passes through whole: JSON text is UTF-8
                }
            }
            out.append(UInt8(ascii: "\""))
        }
    }
}
