/// The data a template renders: a tree of strings, numbers, booleans, lists and dictionaries built explicitly by the
/// caller (no reflection). Literals build it directly: `["name": "prod", "apps": [["id": "com.example"]], "count": 3]`.
public enum MustacheValue: Sendable, Equatable {
    /// Text; HTML-escaped by `{{name}}`, raw with `{{{name}}}` or `{{& name}}`.
    case string(String)
    /// A whole number, rendered in decimal.
    case int(Int)
    /// A floating-point number; integral values render without ".0" (`2.0` → `2`, `1.21` → `1.21`).
    case double(Double)
    /// A boolean: `false` hides a section and shows an inverted one; interpolates as `true` / `false`.
    case bool(Bool)
    /// Nothing: falsey, interpolates as the empty string.
    case null
    /// A list: a section renders once per element, with the element on top of the context stack.
    case array([MustacheValue])
    /// Named values, looked up by the names in tags.
    case dictionary([String: MustacheValue])
}

extension MustacheValue: ExpressibleByStringLiteral {
    /// A `.string` from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension MustacheValue: ExpressibleByStringInterpolation {}

extension MustacheValue: ExpressibleByIntegerLiteral {
    /// An `.int` from a literal.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension MustacheValue: ExpressibleByFloatLiteral {
    /// A `.double` from a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension MustacheValue: ExpressibleByBooleanLiteral {
    /// A `.bool` from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension MustacheValue: ExpressibleByNilLiteral {
    /// `.null` from `nil`.
    public init(nilLiteral: ()) { self = .null }
}

extension MustacheValue: ExpressibleByArrayLiteral {
    /// An `.array` from a literal.
    public init(arrayLiteral elements: MustacheValue...) { self = .array(elements) }
}

extension MustacheValue: ExpressibleByDictionaryLiteral {
    /// A `.dictionary` from a literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        var dictionary: [String: MustacheValue] = [:]
        dictionary.reserveCapacity(elements.count)
        for (key, value) in elements { dictionary[key] = value }
        self = .dictionary(dictionary)
    }
}

extension MustacheValue {
    /// Whether a section shows (`{{#name}}`): everything except `false`, `null`, `""` and `[]`.
    public var isTruthy: Bool {
        switch self {
        case .bool(let value): return value
        case .null: return false
        case .string(let value): return !value.isEmpty
        case .array(let elements): return !elements.isEmpty
        case .int, .double, .dictionary: return true
        }
    }

    /// The value under `key` when this is a dictionary, else nil.
    @inline(__always)
    func member(_ key: String) -> MustacheValue? {
        if case .dictionary(let dictionary) = self { return dictionary[key] }
        return nil
    }
}
