/// A set of parsed templates that can call each other by name (partials `{{>name}}`, parents `{{<name}}`), ready to
/// render. Everything is parsed and checked when the library is made; rendering only walks the trees.
public struct TemplateLibrary: Sendable {
    let templates: [Template]
    let indices: [String: Int]
    /// The linked programs as the renderer reads them.
    let table: RenderTable
    /// The bounds parsing and rendering respect.
    public let limits: TemplateLimits

    /// The names of all templates, sorted.
    public var names: [String] { indices.keys.sorted() }

    /// A library of in-memory templates, keyed by name (the sources of tests, or of spec partials).
    /// Throws `TemplateError` for a syntax error, a partial or parent name escaping the library (`..`, absolute),
    /// an unknown parent, or partials/parents that always call each other in a cycle.
    public init(templates sources: [String: String], limits: TemplateLimits = TemplateLimits()) throws(TemplateError) {
        var parsed: [Template] = []
        for name in sources.keys.sorted() {
            parsed.append(try Template(sources[name] ?? "", name: name, limits: limits))
        }
        try self.init(parsed: parsed, limits: limits)
    }

    /// A library of already parsed templates; names must be unique (a repeated name keeps the first).
    /// Throws `TemplateError` as `init(templates:)` does for names, parents and cycles.
    public init(_ templates: [Template], limits: TemplateLimits = TemplateLimits()) throws(TemplateError) {
        try self.init(parsed: templates, limits: limits)
    }

    init(parsed: [Template], limits: TemplateLimits) throws(TemplateError) {
        var indices: [String: Int] = [:]
        var unique: [Template] = []
        for template in parsed where indices[template.name] == nil {
            indices[template.name] = unique.count
            unique.append(template)
        }
        var linked: [Template] = []
        linked.reserveCapacity(unique.count)
        for template in unique {
            let program = try Self.link(template, indices: indices)
            linked.append(Template(name: template.name, file: template.file, program: program))
        }
        self.templates = linked
        self.indices = indices
        self.table = RenderTable(programs: linked.map(\.program))
        self.limits = limits
        try checkCycles()
    }

    /// Renders template `name` with `value` as the root context, as UTF-8 bytes. Missing values render empty.
    /// Throws `TemplateError` for an unknown template name, partials nesting past `limits.maxPartialDepth` (the
    /// error names the chain), or a render past `limits.maxRenderSteps` / `maxRenderDepth`.
    ///
    /// The bytes are written straight into the returned array's storage, sized from the previous render's output.
    public func renderBytes(_ name: String, _ value: MustacheValue) throws(TemplateError) -> [UInt8] {
        let index = try templateIndex(name)
        let hint = table.lastSize.load(ordering: .relaxed)
        let capacity = max(hint + hint / 8, 4096)
        var failure: TemplateError?
        var spilled: [UInt8]?
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { memory, initialized in
            guard let start = memory.baseAddress else { return }
            // The renderer writes into memory this closure lends, so it lives and dies inside it.
            var renderer = Renderer(templates: templates, table: table, limits: limits,
                                    output: OutputBuffer(writingInto: start, capacity: memory.count))
            do throws(TemplateError) {
                try renderer.render(template: index, value: value)
            } catch {
                failure = error
            }
            table.lastSize.store(renderer.output.count, ordering: .relaxed)
            if renderer.output.spilled {
                // It outgrew the array: copy it out of the renderer's own memory (freed with the renderer).
                spilled = renderer.output.copyBytes()
            } else {
                initialized = renderer.output.count
            }
        }
        if let failure { throw failure }
        return spilled ?? bytes
    }

    /// Renders template `name` with `value` as the root context, appending UTF-8 to `buffer` (reuse one buffer across
    /// renders to skip its growth). On a throw, `buffer` holds what was rendered before the error. Throws as
    /// `renderBytes` does.
    public func render(_ name: String, _ value: MustacheValue, into buffer: inout [UInt8]) throws(TemplateError) {
        let index = try templateIndex(name)
        let hint = table.lastSize.load(ordering: .relaxed)
        var renderer = Renderer(templates: templates, table: table, limits: limits,
                                output: OutputBuffer(capacity: max(hint + hint / 8, 4096)))
        defer {
            renderer.output.appendBytes(to: &buffer)
            table.lastSize.store(renderer.output.count, ordering: .relaxed)
        }
        try renderer.render(template: index, value: value)
    }

    private func templateIndex(_ name: String) throws(TemplateError) -> Int {
        guard let index = indices[name] else {
            throw TemplateError(file: name, line: 0, column: 0, message: "no template named \"\(name)\"")
        }
        return index
    }

    /// Renders template `name` with `value` as the root context. Throws as `renderBytes` does.
    public func render(_ name: String, _ value: MustacheValue) throws(TemplateError) -> String {
        String(decoding: try renderBytes(name, value), as: UTF8.self)
    }

    /// The program of `template` with every partial and parent pointed at its template's index. Throws for a name
    /// that escapes the library or an unknown parent.
    private static func link(_ template: Template, indices: [String: Int]) throws(TemplateError) -> Program {
        let program = template.program
        var isParent = [Bool](repeating: false, count: program.references.count)
        for instruction in program.instructions where instruction.operation == .parent {
            isParent[Int(instruction.reference)] = true
        }
        var references: [Reference] = []
        for (position, reference) in program.references.enumerated() {
            let what = isParent[position] ? "parent" : "partial"
            if reference.name.hasPrefix("/") || reference.name.split(separator: "/").contains("..") {
                throw TemplateError(file: template.file, line: reference.line, column: reference.column,
                                    message: "\(what) name \"\(reference.name)\" leaves the template library; "
                                        + "names are relative to its root, without \"..\"")
            }
            var resolved = reference
            resolved.index = indices[reference.name]
            if isParent[position], resolved.index == nil {
                throw TemplateError(file: template.file, line: reference.line, column: reference.column,
                                    message: "unknown parent \"\(reference.name)\"; known templates: "
                                        + Self.sample(indices.keys))
            }
            references.append(resolved)
        }
        return program.with(references: references)
    }

    static func sample(_ names: Dictionary<String, Int>.Keys) -> String {
        let sorted = names.sorted()
        let shown = sorted.prefix(10).joined(separator: ", ")
        return sorted.count > 10 ? shown + ", …" : (shown.isEmpty ? "none" : shown)
    }
}
