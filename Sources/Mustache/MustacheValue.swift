/// The data a template renders: a tree of strings, numbers, booleans, lists and dictionaries built explicitly by the
/// caller (no reflection). Literals build it directly: `["name": "prod", "apps": [["id": "com.example"]], "count": 3]`;
/// `.string(_:)`, `.int(_:)`, `.double(_:)`, `.bool(_:)`, `.null`, `.array(_:)` and `.dictionary(_:)` build it from
/// values.
///
/// A dictionary is stored as a small list of members, each with a fingerprint of its key, so the renderer finds a
/// tag's name by comparing integers (no hashing, no reference counting while it renders).
public struct MustacheValue: Sendable {
    /// The kinds of value; dictionaries hold `Member`s. Lists and dictionaries keep their elements in memory of
    /// their own (`SharedElements`), which the renderer walks by pointer for as long as the tree lives.
    enum Storage: Sendable {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)
        case null
        case array(SharedElements<MustacheValue>)
        case dictionary(SharedElements<Member>)
    }

    let storage: Storage

    init(storage: Storage) { self.storage = storage }

    /// Text; HTML-escaped by `{{name}}`, raw with `{{{name}}}` or `{{& name}}`.
    public static func string(_ value: String) -> MustacheValue { MustacheValue(storage: .string(value)) }

    /// A whole number, rendered in decimal.
    public static func int(_ value: Int) -> MustacheValue { MustacheValue(storage: .int(value)) }

    /// A floating-point number; integral values render without ".0" (`2.0` → `2`, `1.21` → `1.21`).
    public static func double(_ value: Double) -> MustacheValue { MustacheValue(storage: .double(value)) }

    /// A boolean: `false` hides a section and shows an inverted one; interpolates as `true` / `false`.
    public static func bool(_ value: Bool) -> MustacheValue { MustacheValue(storage: .bool(value)) }

    /// Nothing: falsey, interpolates as the empty string.
    public static var null: MustacheValue { MustacheValue(storage: .null) }

    /// A list: a section renders once per element, with the element on top of the context stack.
    public static func array(_ elements: [MustacheValue]) -> MustacheValue {
        MustacheValue(storage: .array(SharedElements(elements)))
    }

    /// Named values, looked up by the names in tags.
    public static func dictionary(_ members: [String: MustacheValue]) -> MustacheValue {
        let list = SharedElements<Member>(capacity: members.count) { base in
            var count = 0
            for (key, value) in members where count < members.count {
                (base + count).initialize(to: Member(value: value, fingerprint: Member.fingerprint(key), key: key))
                count += 1
            }
            return count
        }
        return MustacheValue(storage: .dictionary(list))
    }
}

/// One key and value of a dictionary. `value` comes first: the renderer reaches it through a pointer to the member.
struct Member: Sendable {
    let value: MustacheValue
    /// `fingerprint(key)`.
    let fingerprint: UInt64
    let key: String

    /// Marks a key that is not all ASCII: it may equal (as Swift compares strings, by canonical equivalence) a key
    /// with other bytes, so it matches every fingerprint and only `==` decides.
    static let nonASCII = UInt64.max

    /// A 63-bit FNV-1a hash of an ASCII key's bytes (ASCII strings are equal exactly when their bytes are), or
    /// `nonASCII`. Equal keys always have equal fingerprints or one of them is `nonASCII`.
    static func fingerprint(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var bits: UInt8 = 0
        for byte in key.utf8 {
            bits |= byte
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return bits < 0x80 ? hash & ~(1 << 63) : nonASCII
    }

    /// Whether a key with fingerprint `fingerprint` may equal one with fingerprint `other`.
    @inline(__always)
    static func mayMatch(_ fingerprint: UInt64, _ other: UInt64) -> Bool {
        fingerprint == other || fingerprint == nonASCII || other == nonASCII
    }
}

extension MustacheValue: Equatable {
    /// Values are equal when they are the same kind with equal contents; dictionaries compare as maps (member
    /// order does not matter).
    public static func == (lhs: MustacheValue, rhs: MustacheValue) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.string(let a), .string(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        case (.array(let a), .array(let b)): return a.elementsEqual(b)
        case (.dictionary(let a), .dictionary(let b)):
            guard a.count == b.count else { return false }
            let map = Dictionary(b.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            return a.allSatisfy { map[$0.key] == $0.value }
        default: return false
        }
    }
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
        // Built in place, in the dictionary's own memory.
        let list = SharedElements<Member>(capacity: elements.count) { base in
            var count = 0
            for (key, value) in elements {
                let member = Member(value: value, fingerprint: Member.fingerprint(key), key: key)
                if let index = (0..<count).first(where: {
                    Member.mayMatch(base[$0].fingerprint, member.fingerprint) && base[$0].key == key
                }) {
                    base[index] = member
                } else {
                    (base + count).initialize(to: member)
                    count += 1
                }
            }
            return count
        }
        self.init(storage: .dictionary(list))
    }
}

extension MustacheValue {
    /// Whether a section shows (`{{#name}}`): everything except `false`, `null`, `""` and `[]`.
    public var isTruthy: Bool {
        switch storage {
        case .bool(let value): return value
        case .null: return false
        case .string(let value): return !value.isEmpty
        case .array(let elements): return !elements.isEmpty
        case .int, .double, .dictionary: return true
        }
    }
}
