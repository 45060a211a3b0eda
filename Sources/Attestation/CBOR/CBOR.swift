/// A decoded CBOR data item (RFC 8949 §3): what ``CBORDecoder`` produces. Tags are not represented: the decoder
/// refuses them (App Attest sends none).
public indirect enum CBOR: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer −1 − n (so `.negative(0)` is −1).
    case negative(UInt64)
    /// Major type 2: a byte string (indefinite-length strings arrive joined).
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string (indefinite-length strings arrive joined).
    case text(String)
    /// Major type 4: an array.
    case array([CBOR])
    /// Major type 5: a map, its pairs in the order they were encoded (keys are unique: duplicates are refused).
    case map([Pair])
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null
    /// Simple value 23.
    case undefined
    /// Half-, single- or double-precision floats (major type 7, additional information 25–27), widened to Double.
    case float(Double)

    /// One key–value pair of a map.
    public struct Pair: Sendable, Hashable {
        /// The key (any data item).
        public var key: CBOR
        /// The value.
        public var value: CBOR

        /// The pair `key: value`.
        public init(_ key: CBOR, _ value: CBOR) {
            self.key = key
            self.value = value
        }
    }
}

extension CBOR {
    /// The value of a map's text key `key`, or nil (also when this is not a map).
    public subscript(key: String) -> CBOR? {
        self[.text(key)]
    }

    /// The value of a map's key `key`, or nil (also when this is not a map).
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// The bytes of a byte string, or nil.
    public var byteString: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    /// The text of a text string, or nil.
    public var textString: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The elements of an array, or nil.
    public var arrayElements: [CBOR]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The pairs of a map, or nil.
    public var mapPairs: [Pair]? {
        if case .map(let pairs) = self { return pairs }
        return nil
    }

    /// The value of an integer (major type 0 or 1) when it fits in Int64, or nil.
    public var integer: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }
}
