/// A value bound to or read from a database, whichever the engine: SQLite's five storage classes, which PostgreSQL's
/// column types map onto (integers and booleans as `integer`, `bytea` as `blob`).
///
/// Booleans are bound as the integers 0 and 1, as SQLite itself stores them.
/// See https://sqlite.org/datatype3.html
public enum SQLValue: Sendable, Equatable, Hashable {
    /// SQL `NULL`.
    case null
    /// A signed 64-bit integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text; embedded NUL characters are kept.
    case text(String)
    /// Bytes; an empty blob is not `NULL`.
    case blob([UInt8])

    /// `.text`, or `.null` when `v` is nil.
    public init(_ v: String?) {
        self = v.map { .text($0) } ?? .null
    }

    /// `.integer`, or `.null` when `v` is nil.
    public init(_ v: Int?) {
        self = v.map { .integer(Int64($0)) } ?? .null
    }

    /// `.integer`, or `.null` when `v` is nil.
    public init(_ v: Int64?) {
        self = v.map { .integer($0) } ?? .null
    }

    /// `.real`, or `.null` when `v` is nil.
    public init(_ v: Double?) {
        self = v.map { .real($0) } ?? .null
    }

    /// `.integer(1)` for true, `.integer(0)` for false, or `.null` when `v` is nil.
    public init(_ v: Bool?) {
        self = v.map { .integer($0 ? 1 : 0) } ?? .null
    }

    /// `.blob`, or `.null` when `v` is nil.
    public init(_ v: [UInt8]?) {
        self = v.map { .blob($0) } ?? .null
    }

    /// The text of a `.text` value; nil for every other case.
    public var string: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The integer of an `.integer` value; nil for every other case.
    public var int64: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The integer of an `.integer` value when it fits in `Int`; nil otherwise.
    public var int: Int? {
        int64.flatMap { Int(exactly: $0) }
    }

    /// The number of a `.real` or `.integer` value; nil for every other case.
    public var double: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// For an `.integer` value, whether it is non-zero; nil for every other case.
    public var bool: Bool? {
        int64.map { $0 != 0 }
    }

    /// The bytes of a `.blob` value; nil for every other case (text is not converted).
    public var bytes: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }

    /// Whether this is SQL `NULL`.
    public var isNull: Bool {
        self == .null
    }
}
