/// Literals, so arguments read naturally: `["alice", 42, 1.5, nil, true]`.
extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByNilLiteral, ExpressibleByBooleanLiteral
{
    /// `.text(value)`.
    public init(stringLiteral value: String) {
        self = .text(value)
    }

    /// `.integer(value)`.
    public init(integerLiteral value: Int64) {
        self = .integer(value)
    }

    /// `.real(value)`.
    public init(floatLiteral value: Double) {
        self = .real(value)
    }

    /// `.null`.
    public init(nilLiteral: ()) {
        self = .null
    }

    /// `.integer(1)` or `.integer(0)`.
    public init(booleanLiteral value: Bool) {
        self = .integer(value ? 1 : 0)
    }
}
