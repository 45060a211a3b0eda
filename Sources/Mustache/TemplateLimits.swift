/// The bounds that keep parsing and rendering finite whatever the templates say.
public struct TemplateLimits: Sendable, Equatable {
    /// How deep sections, parents and blocks may nest inside one template (a parse error beyond).
    public var maxNesting: Int
    /// How deep partials and parents may call each other while rendering (a render error naming the chain beyond).
    public var maxPartialDepth: Int
    /// How many tags one render may visit (section iterations included), so a template that multiplies
    /// work (nested lists calling partials) ends with an error instead of running for hours.
    public var maxRenderSteps: Int
    /// How deep sections, partials and blocks may nest while rendering, all templates together (bounds stack use).
    /// Whatever it says, at most 4,096 sections may be open at once.
    public var maxRenderDepth: Int
    /// How many bytes one render may produce.
    public var maxOutputBytes: Int

    /// The defaults: nesting 100, partial depth 64, 16 million render steps, render depth 1000, 64 MiB of output.
    public init(maxNesting: Int = 100, maxPartialDepth: Int = 64, maxRenderSteps: Int = 1 << 24,
                maxRenderDepth: Int = 1000, maxOutputBytes: Int = 64 << 20) {
        self.maxOutputBytes = maxOutputBytes
        self.maxNesting = maxNesting
        self.maxPartialDepth = maxPartialDepth
        self.maxRenderSteps = maxRenderSteps
        self.maxRenderDepth = maxRenderDepth
    }
}
