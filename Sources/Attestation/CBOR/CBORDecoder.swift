/// A CBOR decoder (RFC 8949) for the objects App Attest sends: pure, bounded by ``CBORLimits``, and total: any
/// input gives a value or a ``CBORError``, never a trap.
///
/// Accepted: unsigned and negative integers; byte and text strings of definite or indefinite length (§3.2.3: the
/// chunks must be definite strings of the same major type; text chunks each valid UTF-8); arrays and maps of either
/// length kind; false, true, null, undefined; half, single and double floats (widened to Double). Refused: tags
/// (major type 6: App Attest uses none, and skipping them would let one object read two ways), other simple values,
/// reserved additional information 28–30, duplicate map keys, and anything after the item (``decode(_:)``).
/// Encodings need not be preferred (shortest) ones.
public struct CBORDecoder: Sendable {
    /// The bounds applied to every input.
    public let limits: CBORLimits

    /// A decoder with `limits` (the defaults unless given).
    public init(limits: CBORLimits = CBORLimits()) {
        self.limits = limits
    }

    /// Decodes `bytes` as exactly one data item.
    ///
    /// - Throws: ``CBORError`` for malformed or unsupported input, input over the limits, or bytes after the item.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        let (item, end) = try decodePrefix(bytes, from: 0)
        guard end == bytes.count else { throw CBORError(.trailingBytes, at: end) }
        return item
    }

    /// Decodes the one data item that starts at `offset` and returns it with the offset just after it (what follows
    /// is left alone: authenticator data carries a COSE key followed by other fields).
    ///
    /// - Throws: ``CBORError`` for malformed or unsupported input, or input over the limits.
    public func decodePrefix(_ bytes: [UInt8], from offset: Int) throws(CBORError) -> (item: CBOR, end: Int) {
        guard bytes.count <= limits.maxBytes else { throw CBORError(.tooLarge, at: 0) }
        guard offset >= 0, offset < bytes.count else { throw CBORError(.truncated, at: max(0, offset)) }
        var reader = CBORReader(bytes: bytes, index: offset, limits: limits)
        let item = try reader.item(depth: 1)
        return (item, reader.index)
    }
}
