/// One field of a JSON Merge Patch (RFC 7396): absent leaves it alone, `null` removes it, a value replaces it.
public enum Change<Value: Sendable & Equatable>: Sendable, Equatable {
    case absent
    case remove
    case set(Value)
}
