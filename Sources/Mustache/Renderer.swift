/// Renders linked templates into one growing byte buffer. It reads templates through the library's `RenderTable`
/// and the value tree through pointers, so the render loop neither hashes nor touches reference counts.
struct Renderer {
    let templates: [Template]
    let views: UnsafePointer<ProgramView>
    let limits: TemplateLimits
    var output: OutputBuffer
    var steps = 0
    /// The indentation stack `Scope`s slice.
    private var indentation: UnsafeMutablePointer<UInt8>
    private var indentationCapacity = 256
    /// Per key of the library, where in its dictionary the key was last found: dictionaries built alike hold their
    /// keys in the same order, so a lookup usually finds its key there at once.
    private let hints: UnsafeMutablePointer<UInt8>
    /// The sections being rendered, innermost last (`run` renders section bodies in its own loop).
    private let sections: UnsafeMutablePointer<OpenSection>
    private let sectionCapacity: Int
    private var openSections = 0
    /// Where `Member.value` and `Member.key` lie in a member.
    private let valueOffset = MemoryLayout<Member>.offset(of: \Member.value) ?? 0
    private let keyOffset = MemoryLayout<Member>.offset(of: \Member.key) ?? 0

    /// A renderer writing into `output`; call `finish()` when done.
    init(templates: [Template], table: RenderTable, limits: TemplateLimits, output: OutputBuffer) {
        self.templates = templates
        self.views = UnsafePointer(table.views)
        self.limits = limits
        self.output = output
        indentation = Self.allocateIndentation(indentationCapacity)
        hints = .allocate(capacity: max(table.keyCount, 1))
        hints.initialize(repeating: 0, count: max(table.keyCount, 1))
        // Each open section is one level of render depth, so the depth limit bounds them.
        sectionCapacity = min(max(limits.maxRenderDepth, 0), Self.maxOpenSections) + 1
        sections = .allocate(capacity: sectionCapacity)
    }

    /// The most sections one render may have open at once, whatever the depth limit.
    static let maxOpenSections = 4096

    /// An indentation stack of `capacity` bytes, zeroed and readable `OutputBuffer.padding` bytes further.
    private static func allocateIndentation(_ capacity: Int) -> UnsafeMutablePointer<UInt8> {
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + OutputBuffer.padding)
        memory.initialize(repeating: 0, count: capacity + OutputBuffer.padding)
        return memory
    }

    /// Frees the renderer's own memory (not `output`'s).
    func finish() {
        indentation.deallocate()
        hints.deallocate()
        sections.deallocate()
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
    private mutating func run(_ template: Int, _ start: Int, _ end: Int, _ outer: Scope) throws(TemplateError) {
        let view = views[template]
        let instructions = view.instructions
        let hints = hints + view.keyOffset
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
                    let needed = Int(instruction.b) &+ OutputBuffer.padding
                    if needed > limit - out { (out, limit) = makeRoom(needed, after: out) }
                    out = OutputBuffer.copyPadded(view.text + Int(instruction.a), count: Int(instruction.b), to: out)
                    next += 1
                case .lineStart:
                    let indent = scope.indentEnd &- scope.indentStart
                    if indent &+ OutputBuffer.padding > limit - out {
                        (out, limit) = makeRoom(indent &+ OutputBuffer.padding, after: out)
                    }
                    out = OutputBuffer.copyPadded(indentation + scope.indentStart, count: indent, to: out)
                    next += 1
                case .lineText:
                    // Lines of text usually follow each other: copy them all here, without dispatching each.
                    let indent = scope.indentEnd &- scope.indentStart
                    var line = instruction.pointee
                    repeat {
                        let needed = indent &+ Int(line.b) &+ OutputBuffer.padding
                        if needed > limit - out { (out, limit) = makeRoom(needed, after: out) }
                        out = OutputBuffer.copyPadded(indentation + scope.indentStart, count: indent, to: out)
                        out = OutputBuffer.copyPadded(view.text + Int(line.a), count: Int(line.b), to: out)
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
                        next = instructions + Int(instruction.c)
                    }
                case .partial:
                    output.written(upTo: out)
                    try expand(template, Int(instruction.a), parent: nil, scope)
                    (out, limit) = (output.end, output.limit)
                    next += 1
                case .parent:
                    let parent = ParentCall(template: template, instruction: next - instructions)
                    output.written(upTo: out)
                    try expand(template, Int(instruction.a), parent: parent, scope)
                    (out, limit) = (output.end, output.limit)
                    next = instructions + Int(instruction.c)
                case .block:
                    output.written(upTo: out)
                    try block(template, next - instructions, scope)
                    (out, limit) = (output.end, output.limit)
                    next = instructions + Int(instruction.c)
                }
            }
            // The end of the range, or of the innermost open section's body.
            guard openSections > bottom else {
                output.written(upTo: out)
                return
            }
            let section = sections + (openSections - 1)
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
            bodyEnd = openSections > bottom ? sections[openSections - 1].bodyEnd : instructions + end
            let instruction = InstructionRef(section.pointee.instruction)
            if instruction.suffixCount != 0 { suffix(instruction, view, &out, &limit) }
        }
    }

    /// Enters the body of the section at `instruction`, one level deeper than `scope`, with `value` on top of the
    /// context stack: the first of `elements` when a list, nil for an inverted section (the context stays).
    @inline(__always)
    private mutating func open(
        _ instruction: UnsafePointer<Instruction>, _ view: ProgramView, _ value: UnsafePointer<MustacheValue>?,
        elements: Int, _ scope: inout Scope, _ bodyEnd: inout UnsafePointer<Instruction>,
        at out: UnsafeMutablePointer<UInt8>
    ) throws(TemplateError) {
        guard openSections < sectionCapacity else { throw budgetError(scope, at: out) }
        let end = view.instructions + Int(instruction.pointee.c)
        let section = sections + openSections
        section.initialize(to: OpenSection(
            link: Link(element: value ?? scope.context.pointee.element, next: scope.context), instruction: instruction,
            bodyEnd: end, remaining: elements - 1, outer: scope.context))
        openSections += 1
        if value != nil, let link = UnsafePointer(section).pointer(to: \.link) {
            scope.context = link
        }
        scope.depth += 1
        bodyEnd = end
        try charge(end - instruction - 1, scope, at: out)
    }

    /// Counts rendering `instructions` more instructions (and one step more) in `scope`, with the output written up
    /// to `out`; throws past the limits on steps, depth or output.
    @inline(__always)
    private mutating func charge(_ instructions: Int, _ scope: Scope, at out: UnsafeMutablePointer<UInt8>)
        throws(TemplateError) {
        steps &+= instructions &+ 1
        if steps > limits.maxRenderSteps || scope.depth > limits.maxRenderDepth
            || out - output.base > limits.maxOutputBytes {
            throw budgetError(scope, at: out)
        }
    }

    /// Writes the text a variable or section tag has before it at `out`, after the indentation if it starts a line.
    @inline(__always)
    private mutating func prefix(
        _ instruction: InstructionRef, _ view: ProgramView, _ scope: Scope, _ out: inout UnsafeMutablePointer<UInt8>,
        _ limit: inout UnsafeMutablePointer<UInt8>
    ) {
        let indent = instruction.prefix == .line ? scope.indentEnd &- scope.indentStart : 0
        let count = Int(instruction.prefixCount)
        let needed = indent &+ count &+ OutputBuffer.padding
        if needed > limit - out { (out, limit) = makeRoom(needed, after: out) }
        out = OutputBuffer.copyPadded(indentation + scope.indentStart, count: indent, to: out)
        out = OutputBuffer.copyPadded(view.text + Int(instruction.prefixStart), count: count, to: out)
    }

    /// Writes the text a variable or section tag has after itself at `out`.
    @inline(__always)
    private mutating func suffix(
        _ instruction: InstructionRef, _ view: ProgramView, _ out: inout UnsafeMutablePointer<UInt8>,
        _ limit: inout UnsafeMutablePointer<UInt8>
    ) {
        let needed = Int(instruction.suffixCount) &+ OutputBuffer.padding
        if needed > limit - out { (out, limit) = makeRoom(needed, after: out) }
        out = OutputBuffer.copyPadded(view.text + Int(instruction.suffixStart), count: Int(instruction.suffixCount), to: out)
    }

    /// Grows the output to hold `needed` more bytes after `end` (where `run` has written up to); returns the output's
    /// new end and limit.
    @inline(never)
    mutating func makeRoom(_ needed: Int, after end: UnsafeMutablePointer<UInt8>)
        -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) {
        output.written(upTo: end)
        output.reserve(needed)
        return (output.end, output.limit)
    }

    /// Renders the block at instruction `index`: the outermost parent's override of it, or its own content.
    @inline(never)
    private mutating func block(_ template: Int, _ index: Int, _ scope: Scope) throws(TemplateError) {
        let view = views[template]
        let block = view.blocks[Int(view.instructions[index].a)]
        let content = override(named: block.name, scope) ?? ParentCall(template: template, instruction: index)
        let contentEnd = Int(views[content.template].instructions[content.instruction].c)
        let inner = indented(scope, view.text, block.indentStart, block.indentCount)
        try run(content.template, content.instruction + 1, contentEnd, inner)
    }

    /// Renders reference `number` of `template`: a partial, or a parent (whose body holds the overrides), in the
    /// current context.
    @inline(never)
    private mutating func expand(_ template: Int, _ number: Int, parent: ParentCall?, _ scope: Scope)
        throws(TemplateError) {
        let caller = views[template]
        let reference = caller.references[number]
        guard reference.template >= 0 else { return }
        let index = Int(reference.template)
        guard scope.partialDepth < limits.maxPartialDepth else {
            throw cycleError(templates[template].program.references[number], index, scope)
        }
        try Link.push(index, onto: scope.calls) { (calls) throws(TemplateError) in
            var inner = indented(scope, caller.text, reference.indentStart, reference.indentCount)
            inner.calls = calls
            inner.partialDepth += 1
            if let parent {
                try Link.push(parent, onto: inner.overrides) { (overrides) throws(TemplateError) in
                    inner.overrides = overrides
                    try run(index, 0, views[index].instructionCount, inner)
                }
            } else {
                try run(index, 0, views[index].instructionCount, inner)
            }
        }
    }

    /// The block instruction overriding block `name`, from the outermost parent that gives one.
    private func override(named name: Int32, _ scope: Scope) -> ParentCall? {
        var found: ParentCall?
        var link = scope.overrides
        while let current = link {
            let parent = current.pointee.element
            let view = views[parent.template]
            var index = parent.instruction + 1
            let end = Int(view.instructions[parent.instruction].c)
            while index < end {
                let instruction = view.instructions[index]
                if instruction.operation == .block, view.blocks[Int(instruction.a)].name == name {
                    found = ParentCall(template: parent.template, instruction: index)
                    break
                }
                index = instruction.operation == .block ? Int(instruction.c) : index + 1
            }
            link = current.pointee.next
        }
        return found
    }

    /// The scope one level deeper, with `count` bytes of `text` from `start` added to the indentation (a
    /// standalone tag's), or with no indentation at all (`count` -1: an inline tag, whose content continues the
    /// current line).
    private mutating func indented(_ scope: Scope, _ text: UnsafePointer<UInt8>, _ start: Int32, _ count: Int32) -> Scope {
        var inner = scope
        inner.depth += 1
        guard count != 0 else { return inner }
        guard count > 0 else {
            inner.indentStart = scope.indentTop
            inner.indentEnd = scope.indentTop
            return inner
        }
        let length = scope.indentEnd - scope.indentStart
        let needed = scope.indentTop + length + Int(count)
        if needed > indentationCapacity {
            let grown = Self.allocateIndentation(max(needed, indentationCapacity * 2))
            grown.update(from: indentation, count: scope.indentTop)
            indentation.deallocate()
            indentation = grown
            indentationCapacity = max(needed, indentationCapacity * 2)
        }
        if scope.indentEnd != scope.indentTop {
            // Not on top of the stack (an inner scope cleared it): copy it up first.
            Self.copy(indentation + scope.indentStart, to: indentation + scope.indentTop, count: length)
            inner.indentStart = scope.indentTop
            inner.indentEnd = scope.indentTop + length
        }
        Self.copy(text + Int(start), to: indentation + inner.indentEnd, count: Int(count))
        inner.indentEnd += Int(count)
        inner.indentTop = inner.indentEnd
        return inner
    }

    /// Copies `count` bytes forwards, byte by byte (indentation is short; `memmove` would cost more than the copy).
    @inline(__always)
    private static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        for offset in 0..<count { target[offset] = source[offset] }
    }

    /// The value a name resolves to: the first key through the context stack, the others inside it.
    @inline(__always)
    private static func lookup(
        _ view: ProgramView, _ instruction: InstructionRef, _ scope: Scope, _ hints: UnsafeMutablePointer<UInt8>,
        _ layout: (value: Int, key: Int)
    ) -> UnsafePointer<MustacheValue>? {
        let count = Int(instruction.b)
        guard count > 0 else { return scope.context.pointee.element }
        let first = Int(instruction.a)
        var link: UnsafePointer<Link<UnsafePointer<MustacheValue>>>? = scope.context
        var found: UnsafePointer<MustacheValue>?
        while let current = link {
            if let value = member(current.pointee.element, view, first, hints, layout) {
                found = value
                break
            }
            link = current.pointee.next
        }
        guard var value = found else { return nil }
        var position = first + 1
        while position < first + count {
            guard let member = member(value, view, position, hints, layout) else { return nil }
            value = member
            position += 1
        }
        return value
    }

    /// The member of `value` named by key `key` of `view`, if `value` is a dictionary that has it. Tries where the
    /// key was last found first, then scans; compares fingerprints, then the two strings' bits (equal bits are equal
    /// strings), then the strings.
    @inline(__always)
    private static func member(
        _ value: UnsafePointer<MustacheValue>, _ view: ProgramView, _ key: Int, _ hints: UnsafeMutablePointer<UInt8>,
        _ layout: (value: Int, key: Int)
    ) -> UnsafePointer<MustacheValue>? {
        guard let members = value.members, let base = members.baseAddress else { return nil }
        let fingerprint = view.fingerprints[key]
        let wanted = UnsafeRawPointer(view.keys + key)
        let guess = Int(hints[key])
        if guess < members.count, (base + guess).pointee.fingerprint == fingerprint {
            let raw = UnsafeRawPointer(base + guess)
            let bits = raw + layout.key
            if bits.load(as: UInt64.self) == wanted.load(as: UInt64.self)
                && bits.load(fromByteOffset: 8, as: UInt64.self) == wanted.load(fromByteOffset: 8, as: UInt64.self) {
                return (raw + layout.value).assumingMemoryBound(to: MustacheValue.self)
            }
        }
        for position in 0..<members.count {
            let member = base + position
            guard Member.mayMatch(member.pointee.fingerprint, fingerprint) else { continue }
            let raw = UnsafeRawPointer(member)
            let bits = raw + layout.key
            let sameBits = bits.load(as: UInt64.self) == wanted.load(as: UInt64.self)
                && bits.load(fromByteOffset: 8, as: UInt64.self) == wanted.load(fromByteOffset: 8, as: UInt64.self)
            if sameBits || member.pointee.key == view.keys[key] {
                hints[key] = UInt8(truncatingIfNeeded: position)
                return (raw + layout.value).assumingMemoryBound(to: MustacheValue.self)
            }
        }
        return nil
    }
}

/// An instruction read field by field where it lies, so a dispatch loads only the fields its case uses.
struct InstructionRef {
    let pointer: UnsafePointer<Instruction>

    @inline(__always) init(_ pointer: UnsafePointer<Instruction>) { self.pointer = pointer }

    var pointee: Instruction { @inline(__always) get { pointer.pointee } }
    var operation: Instruction.Operation { @inline(__always) get { pointer.pointee.operation } }
    var prefix: Instruction.Prefix { @inline(__always) get { pointer.pointee.prefix } }
    var prefixCount: UInt16 { @inline(__always) get { pointer.pointee.prefixCount } }
    var suffixCount: UInt16 { @inline(__always) get { pointer.pointee.suffixCount } }
    var a: Int32 { @inline(__always) get { pointer.pointee.a } }
    var b: Int32 { @inline(__always) get { pointer.pointee.b } }
    var c: Int32 { @inline(__always) get { pointer.pointee.c } }
    var prefixStart: Int32 { @inline(__always) get { pointer.pointee.prefixStart } }
    var suffixStart: Int32 { @inline(__always) get { pointer.pointee.suffixStart } }
}
