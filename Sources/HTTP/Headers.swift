/// An ordered list of header fields: keeps repeats and the order they came in, looks names up case-insensitively
/// (RFC 9110 §5.1).
public struct Headers: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as received or to be sent.
    public struct Field: Sendable, Equatable {
        /// The field name as sent or set (compared without regard to case).
        public var name: String
        /// The field value, without surrounding whitespace.
        public var value: String

        /// A field with its name and value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order, repeats included.
    public private(set) var fields: [Field] = []

    /// No fields.
    public init() {}

    /// Fields from name-value pairs, in order.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Fields from a literal, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.same($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// The comma-separated elements of every `name` field, in order (RFC 9110 §5.6.1): whitespace trimmed, empty
    /// elements dropped.
    public func elements(_ name: String) -> [Substring] {
        ASCII.listElements(values(name))
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    /// The number of fields, repeats included.
    public var count: Int { fields.count }

    /// Makes room for `n` fields, so that a parsed head does not regrow the array field by field.
    mutating func reserveCapacity(_ n: Int) { fields.reserveCapacity(n) }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison of field names (names are tokens, so ASCII suffices).
    static func same(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            let lx = (x >= 65 && x <= 90) ? x + 32 : x
            let ly = (y >= 65 && y <= 90) ? y + 32 : y
            if lx != ly { return false }
        }
        return true
    }
}
