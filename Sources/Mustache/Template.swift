/// One parsed template: an immutable tree of text and tags, parsed once and rendered many times.
/// Partials and parents are resolved by the `TemplateLibrary` that holds it.
public struct Template: Sendable {
    /// The name partials and parents use for it, e.g. `layouts/main`.
    public let name: String
    /// The file errors name, e.g. `layouts/main.mustache`.
    public let file: String
    let program: Program

    /// Parses `source`. Throws `TemplateError` (naming `file`, line and column) for a syntax error: an unclosed tag,
    /// an empty tag name, a bad set-delimiter tag, a section never closed or closed by the wrong name, a source
    /// over 1 GiB.
    public init(_ source: String, name: String, file: String? = nil, limits: TemplateLimits = TemplateLimits())
        throws(TemplateError) {
        let bytes = Array(source.utf8)
        let file = file ?? name
        guard bytes.count < Int(Int32.max) / 2 else {
            throw TemplateError(file: file, line: 0, column: 0, message: "template is larger than 1 GiB")
        }
        let lines = LineIndex(bytes)
        let raw = try TagScanner(source: bytes, lines: lines).scan(file: file)
        let standalone = StandaloneLines(source: bytes).apply(raw)
        let indented = BlockIndentation(source: bytes).apply(standalone)
        self.name = name
        self.file = file
        var compiler = Compiler(source: bytes, lines: lines, file: file, limits: limits)
        self.program = try compiler.compile(indented)
    }

    init(name: String, file: String, program: Program) {
        self.name = name
        self.file = file
        self.program = program
    }
}
