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

    /// Appends the JSON form of the value (strings escaped per RFC 8259 §7).
    func appendJSON(to out: inout String) {
        switch self {
        case .int(let value): out += String(value)
        case .bool(let value): out += value ? "true" : "false"
        case .double(let value): out += value.isFinite ? String(value) : "null"
        case .string(let value):
            out += "\""
            // Most values (paths, ids, addresses) need no escaping: append them whole.
            if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
                out += value
                out += "\""
                return
            }
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
            out += "\""
        }
    }
}
