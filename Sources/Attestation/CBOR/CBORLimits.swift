/// Bounds on what ``CBORDecoder`` accepts, so that hostile input costs little memory and time.
public struct CBORLimits: Sendable, Equatable {
    /// Most nested arrays and maps (and indefinite strings) around an item; the top level is depth 1.
    public var maxDepth: Int
    /// Most data items in one input, counting every element, key, value and string chunk.
    public var maxItems: Int
    /// Largest input in bytes.
    public var maxBytes: Int

    /// Limits with the defaults: depth 16, 10 000 items, 1 MiB.
    public init(maxDepth: Int = 16, maxItems: Int = 10_000, maxBytes: Int = 1 << 20) {
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxBytes = maxBytes
    }
}
