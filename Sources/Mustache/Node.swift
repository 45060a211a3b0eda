/// One element of a parsed template: the immutable token tree the renderer walks.
enum Node: Sendable {
    /// Literal template text.
    case text([UInt8])
    /// The start of a template line: where a standalone partial's indentation goes.
    case lineStart
    /// `{{name}}` (escaped) or `{{{name}}}` / `{{& name}}` (raw).
    case variable(Name, escaped: Bool)
    /// `{{#name}}…{{/name}}`.
    case section(Name, [Node])
    /// `{{^name}}…{{/name}}`.
    case inverted(Name, [Node])
    /// `{{>name}}`.
    indirect case partial(Reference)
    /// `{{<name}}…{{/name}}` with the blocks it overrides.
    indirect case parent(Reference, [Block])
    /// `{{$name}}…{{/name}}` outside a parent: a place a child template may fill.
    indirect case block(Block)
}

/// A tag's name split on dots; no components means the implicit iterator `.`.
struct Name: Sendable {
    let components: [String]
    let text: String

    init(_ text: String) {
        self.text = text
        components = text == "." ? [] : text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
}

/// `{{$name}}…{{/name}}`: its content (default or override) and how to indent it.
struct Block: Sendable {
    let name: String
    let nodes: [Node]
    /// For a standalone block, the indentation its (dedented) content takes where it expands; nil inline.
    let indentation: [UInt8]?
}

/// A partial or parent tag: the template it names and where it stands.
struct Reference: Sendable {
    let name: String
    /// The index of the named template in its library, once linked; nil when no such template.
    var index: Int?
    /// For a standalone tag, the whitespace before it, prepended to every line of the template; nil inline.
    let indentation: [UInt8]?
    let line: Int
    let column: Int
}
