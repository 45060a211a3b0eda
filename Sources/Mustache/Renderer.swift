/// Renders linked templates into one growing byte buffer. It reads templates through the library's `RenderTable`
/// and the value tree through pointers, so the render loop neither hashes nor touches reference counts.
///
/// Not copyable: it owns its output and its stacks, freed when it goes away. Every pointer it follows is into memory
/// held for the whole render: the table's (held here), the value tree's (held by the caller of `render`) and its own.
struct Renderer: ~Copyable {
    let templates: [Template]
    /// Holds the memory `views` points into.
    let table: RenderTable
    let views: UnsafePointer<ProgramView>
    let limits: TemplateLimits
    var output: OutputBuffer
    var steps = 0
    /// The indentation stack `Scope`s slice, readable `OutputBuffer.padding` bytes past `indentationCapacity`.
    var indentation: OwnedBuffer<UInt8>
    var indentationCapacity = 256
    /// Per key of the library, where in its dictionary the key was last found: dictionaries built alike hold their
    /// keys in the same order, so a lookup usually finds its key there at once.
    let hints: OwnedBuffer<UInt8>
    /// The sections being rendered, innermost last (`run` renders section bodies in its own loop).
    let sections: OwnedBuffer<OpenSection>
    let sectionCapacity: Int
    var openSections = 0
    /// Where `Member.value` and `Member.key` lie in a member.
    let valueOffset = MemoryLayout<Member>.offset(of: \Member.value) ?? 0
    let keyOffset = MemoryLayout<Member>.offset(of: \Member.key) ?? 0

    /// A renderer writing into `output`.
    init(templates: [Template], table: RenderTable, limits: TemplateLimits, output: consuming OutputBuffer) {
        self.templates = templates
        self.table = table
        self.views = table.views
        self.limits = limits
        self.output = output
        indentation = Self.indentationStack(indentationCapacity)
        hints = OwnedBuffer(repeating: 0, count: table.keyCount)
        // Each open section is one level of render depth, so the depth limit bounds them.
        sectionCapacity = min(max(limits.maxRenderDepth, 0), Self.maxOpenSections) + 1
        sections = OwnedBuffer(uninitializedCapacity: sectionCapacity)
    }

    /// The most sections one render may have open at once, whatever the depth limit.
    static let maxOpenSections = 4096

    /// An indentation stack of `capacity` bytes, zeroed and readable `OutputBuffer.padding` bytes further.
    static func indentationStack(_ capacity: Int) -> OwnedBuffer<UInt8> {
        OwnedBuffer(repeating: 0, count: capacity + OutputBuffer.padding)
    }

    /// Renders template `index` against `value` into `output`. Throws `TemplateError` when partials nest deeper than
    /// the limit (naming the chain) or the render takes more steps than allowed.
    mutating func render(template index: Int, value: MustacheValue) throws(TemplateError) {
        try withUnsafePointer(to: value) { (root) throws(TemplateError) in
            try Link.push(root, onto: nil) { (context) throws(TemplateError) in
                try Link.push(index, onto: nil) { (calls) throws(TemplateError) in
                    let scope = Scope(context: context, indentStart: 0, indentEnd: 0, indentTop: 0, overrides: nil,
                                      calls: calls, partialDepth: 0, depth: 0)
                    try run(index, 0, views[index].instructionCount, scope)
                }
            }
        }
    }

    /// Runs instructions `start..<end` of template `template`. A section's body renders in this same loop: entering
    /// it pushes an `OpenSection` and jumps into the body; at the body's end the loop goes round again for a list's
    /// next element, or pops the section and writes its suffix.
    mutating func run(_ template: Int, _ start: Int, _ end: Int, _ outer: Scope) throws(TemplateError) {
        let view = views[template]
        let instructions = view.instructions
        let hints = hints.base + view.keyOffset
        let layout = (value: valueOffset, key: keyOffset)
        let bottom = openSections
        var scope = outer
        // The output's end and limit live in locals while this loop writes, so they stay in registers (through
        // `output` they would be reloaded after every store of text, which might have written over them); `output`
        // is brought up to date before each call that reads or writes it, and read back after.
        var (out, limit) = (output.end, output.limit)
        try charge(end - start, scope, at: out)
        /// Where the innermost open section's body ends, else `end`.
        var bodyEnd = instructions + end
        var next = instructions + start
        while true {
            while next < bodyEnd {
                let instruction = InstructionRef(next)
                switch instruction.operation {
                case .text:
                    let count = Int(instruction.textCount)
                    if count &+ OutputBuffer.padding > limit - out {
                        (out, limit) = makeRoom(count &+ OutputBuffer.padding, after: out)
                    }
                    out = OutputBuffer.copyPadded(view.text + Int(instruction.textStart), count: count, to: out)
                    next += 1
                case .lineStart:
                    let indent = scope.indentEnd &- scope.indentStart
                    if indent &+ OutputBuffer.padding > limit - out {
                        (out, limit) = makeRoom(indent &+ OutputBuffer.padding, after: out)
                    }
                    out = OutputBuffer.copyPadded(indentation.base + scope.indentStart, count: indent, to: out)
                    next += 1
                case .lineText:
                    // Lines of text usually follow each other: copy them all here, without dispatching each.
                    let indent = scope.indentEnd &- scope.indentStart
                    var line = instruction.pointee
                    repeat {
                        let needed = indent &+ Int(line.textCount) &+ OutputBuffer.padding
                        if needed > limit - out { (out, limit) = makeRoom(needed, after: out) }
                        out = OutputBuffer.copyPadded(indentation.base + scope.indentStart, count: indent, to: out)
                        out = OutputBuffer.copyPadded(view.text + Int(line.textStart), count: Int(line.textCount), to: out)
                        next += 1
                        guard next < bodyEnd else { break }
                        line = next.pointee
                    } while line.operation == .lineText
                case .variable, .rawVariable:
                    if instruction.prefix != .none { prefix(instruction, view, scope, &out, &limit) }
                    if let value = Self.lookup(view, instruction, scope, hints, layout) {
                        (out, limit) = interpolate(value, escaped: instruction.operation == .variable, at: out, limit: limit)
                    }
                    if instruction.suffixCount != 0 { suffix(instruction, view, &out, &limit) }
                    next += 1
                case .section, .inverted:
                    if instruction.prefix != .none { prefix(instruction, view, scope, &out, &limit) }
                    let value = Self.lookup(view, instruction, scope, hints, layout)
                    // What the body renders with on top of the context: a list's first element or the value (nil
                    // for an inverted section, which keeps the context), and how many times; nil when it is skipped.
                    let body: (top: UnsafePointer<MustacheValue>?, times: Int)?
                    if instruction.operation == .inverted {
                        body = value?.isTruthy == true ? nil : (nil, 1)
                    } else if let value, let list = value.elements {
                        body = list.isEmpty ? nil : list.baseAddress.map { ($0, list.count) }
                    } else if let value, value.isTruthy {
                        body = (value, 1)
                    } else {
                        body = nil
                    }
                    if let body {
                        try open(next, view, body.top, elements: body.times, &scope, &bodyEnd, at: out)
                        next += 1
                    } else {
                        if instruction.suffixCount != 0 { suffix(instruction, view, &out, &limit) }
                        next = instructions + Int(instruction.bodyEnd)
                    }
                case .partial:
                    output.written(upTo: out)
                    try expand(template, Int(instruction.reference), parent: nil, scope)
                    (out, limit) = (output.end, output.limit)
                    next += 1
                case .parent:
                    let parent = ParentCall(template: template, instruction: next - instructions)
                    output.written(upTo: out)
                    try expand(template, Int(instruction.reference), parent: parent, scope)
                    (out, limit) = (output.end, output.limit)
                    next = instructions + Int(instruction.bodyEnd)
                case .block:
                    output.written(upTo: out)
                    try block(template, next - instructions, scope)
                    (out, limit) = (output.end, output.limit)
                    next = instructions + Int(instruction.bodyEnd)
                }
            }
            // The end of the range, or of the innermost open section's body.
            guard openSections > bottom else {
                output.written(upTo: out)
                return
            }
            let section = sections.base + (openSections - 1)
            if section.pointee.remaining > 0 {
                // The body again, for the list's next element.
                section.pointee.remaining -= 1
                section.pointee.link = Link(element: section.pointee.link.element + 1, next: section.pointee.outer)
                next = section.pointee.instruction + 1
                try charge(bodyEnd - next, scope, at: out)
                continue
            }
            scope.context = section.pointee.outer
            scope.depth -= 1
            openSections -= 1
            bodyEnd = openSections > bottom ? sections.base[openSections - 1].bodyEnd : instructions + end
            let instruction = InstructionRef(section.pointee.instruction)
            if instruction.suffixCount != 0 { suffix(instruction, view, &out, &limit) }
        }
    }
}
