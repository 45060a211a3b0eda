
/// A JSON value with object members kept in order, as the management API reads and writes it (RFC 8259).
/// Numbers are kept as `Double`, which is exact for every integer the API uses (< 2^53).
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([Member])

    /// One `"key": value` member of an object.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSON

        public init(_ key: String, _ value: JSON) {
            self.key = key
            self.value = value
        }
    }

    /// The member `key` of an object (the last one, as most parsers do), or nil.
    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var number: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The value as an integer when it is a number with no fraction that fits.
    public var integer: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9_007_199_254_740_992 else { return nil }
        return Int(n)
    }

    public var array: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var members: [Member]? {
        if case .object(let m) = self { return m }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The JSON type name, for messages ("expected a string, got a number").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(elements.map { Member($0.0, $0.1) }) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSON {
    /// A string, or null when nil.
    public static func optional(_ s: String?) -> JSON { s.map { .string($0) } ?? .null }
    /// A number, or null when nil.
    public static func optional(_ n: Int64?) -> JSON { n.map { .number(Double($0)) } ?? .null }
    public static func int(_ n: Int) -> JSON { .number(Double(n)) }
    public static func int(_ n: Int64) -> JSON { .number(Double(n)) }
}
