/// Why bytes are not an acceptable CBOR item, and the byte offset where decoding stopped.
public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Equatable {
        /// The input ends inside an item (or a declared length runs past the end).
        case truncated
        /// Bytes follow the single top-level item.
        case trailingBytes
        /// Additional information 28–30, or 31 where no indefinite length exists (integers, tags, simple values).
        case malformedHead
        /// A "break" (0xFF) outside an indefinite-length item.
        case unexpectedBreak
        /// A chunk of an indefinite-length string that is not a definite string of the same major type.
        case invalidChunk
        /// An indefinite-length map ended after a key without its value.
        case oddMapLength
        /// A text string that is not valid UTF-8.
        case invalidUTF8
        /// A map with the same key twice.
        case duplicateKey
        /// A tag (major type 6): not accepted.
        case unsupportedTag
        /// A simple value other than false, true, null and undefined.
        case unsupportedSimpleValue
        /// Nesting deeper than ``CBORLimits/maxDepth``.
        case tooDeep
        /// More items than ``CBORLimits/maxItems``.
        case tooManyItems
        /// Input larger than ``CBORLimits/maxBytes``.
        case tooLarge
    }

    /// What went wrong.
    public let kind: Kind
    /// The byte offset of the item (or byte) where decoding stopped.
    public let offset: Int

    /// An error of `kind` at `offset`.
    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// "CBOR <kind> at byte <offset>".
    public var description: String { "CBOR \(kind.rawValue) at byte \(offset)" }
}
