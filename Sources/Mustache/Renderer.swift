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
    }

    /// An indentation stack of `capacity` bytes, zeroed and readable `OutputBuffer.padding` bytes further.
    private static func allocateIndentation(_ capacity: Int) -> UnsafeMutablePointer<UInt8> {
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + OutputBuffer.padding)
        memory.initialize(repeating: 0, count: capacity + OutputBuffer.padding)
        return memory
    }

    /// Frees the renderer's own memory (not `output`'s).
    func finish() {
        indentation.deallocate()
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

    /// Runs instructions `start..<end` of template `template`.
    private mutating func run(_ template: Int, _ start: Int, _ end: Int, _ scope: Scope) throws(TemplateError) {
        steps &+= end - start + 1
        if steps > limits.maxRenderSteps || scope.depth > limits.maxRenderDepth || output.count > limits.maxOutputBytes {
            throw budgetError(scope)
        }
        let view = views[template]
        var index = start
        while index < end {
            let instruction = InstructionRef(view.instructions + index)
            switch instruction.operation {
            case .text:
                output.reserve(Int(instruction.b) &+ OutputBuffer.padding)
                output.appendPadded(view.text + Int(instruction.a), count: Int(instruction.b))
                index += 1
            case .lineStart:
                output.reserve(scope.indentEnd &- scope.indentStart &+ OutputBuffer.padding)
                output.appendPadded(indentation + scope.indentStart, count: scope.indentEnd &- scope.indentStart)
                index += 1
            case .lineText:
                // Lines of text usually follow each other: copy them all here, without dispatching each.
                let indent = scope.indentEnd - scope.indentStart
                var line = instruction.pointee
                repeat {
                    output.reserve(indent &+ Int(line.b) &+ OutputBuffer.padding)
                    output.appendPadded(indentation + scope.indentStart, count: indent)
                    output.appendPadded(view.text + Int(line.a), count: Int(line.b))
                    index += 1
                    guard index < end else { break }
                    line = view.instructions[index]
                } while line.operation == .lineText
            case .variable, .rawVariable:
                if instruction.prefix != .none { prefix(instruction, view, scope) }
                if let value = lookup(view, instruction, scope) {
                    interpolate(value, escaped: instruction.operation == .variable)
                }
                if instruction.suffixCount != 0 { suffix(instruction, view) }
                index += 1
            case .section:
                if instruction.prefix != .none { prefix(instruction, view, scope) }
                if let value = lookup(view, instruction, scope) {
                    try section(template, index, Int(instruction.c), value, scope)
                }
                if instruction.suffixCount != 0 { suffix(instruction, view) }
                index = Int(instruction.c)
            case .inverted:
                if instruction.prefix != .none { prefix(instruction, view, scope) }
                let bodyEnd = Int(instruction.c)
                if lookup(view, instruction, scope)?.isTruthy != true {
                    try run(template, index + 1, bodyEnd, scope)
                }
                if instruction.suffixCount != 0 { suffix(instruction, view) }
                index = bodyEnd
            case .partial:
                try expand(template, Int(instruction.a), parent: nil, scope)
                index += 1
            case .parent:
                try expand(template, Int(instruction.a), parent: ParentCall(template: template, instruction: index), scope)
                index = Int(instruction.c)
            case .block:
                try block(template, index, scope)
                index = Int(instruction.c)
            }
        }
    }

    /// Writes the text a variable or section tag has before it, after the indentation if it starts a line.
    @inline(__always)
    private mutating func prefix(_ instruction: InstructionRef, _ view: ProgramView, _ scope: Scope) {
        let indent = instruction.prefix == .line ? scope.indentEnd &- scope.indentStart : 0
        let count = Int(instruction.prefixCount)
        output.reserve(indent &+ count &+ OutputBuffer.padding)
        output.appendPadded(indentation + scope.indentStart, count: indent)
        output.appendPadded(view.text + Int(instruction.prefixStart), count: count)
    }

    /// Writes the text a variable or section tag has after itself.
    @inline(__always)
    private mutating func suffix(_ instruction: InstructionRef, _ view: ProgramView) {
        output.reserve(Int(instruction.suffixCount) &+ OutputBuffer.padding)
        output.appendPadded(view.text + Int(instruction.suffixStart), count: Int(instruction.suffixCount))
    }

    /// Renders the body of the section at instruction `index` (ending at `bodyEnd`) for `value`: once per element
    /// of a list, once with any other truthy value on top of the context stack.
    @inline(never)
    private mutating func section(
        _ template: Int, _ index: Int, _ bodyEnd: Int, _ value: UnsafePointer<MustacheValue>, _ scope: Scope
    ) throws(TemplateError) {
        var inner = scope
        inner.depth += 1
        if let elements = value.elements {
            guard let first = elements.baseAddress else { return }
            for element in elements.indices {
                try Link.push(first + element, onto: scope.context) { (context) throws(TemplateError) in
                    inner.context = context
                    try run(template, index + 1, bodyEnd, inner)
                }
            }
        } else if value.isTruthy {
            try Link.push(value, onto: scope.context) { (context) throws(TemplateError) in
                inner.context = context
                try run(template, index + 1, bodyEnd, inner)
            }
        }
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
            (indentation + scope.indentTop).update(from: indentation + scope.indentStart, count: length)
            inner.indentStart = scope.indentTop
            inner.indentEnd = scope.indentTop + length
        }
        (indentation + inner.indentEnd).update(from: text + Int(start), count: Int(count))
        inner.indentEnd += Int(count)
        inner.indentTop = inner.indentEnd
        return inner
    }

    /// The value a name resolves to: the first key through the context stack, the others inside it.
    @inline(__always)
    private func lookup(_ view: ProgramView, _ instruction: InstructionRef, _ scope: Scope) -> UnsafePointer<MustacheValue>? {
        let count = Int(instruction.b)
        guard count > 0 else { return scope.context.pointee.element }
        let first = Int(instruction.a)
        var link: UnsafePointer<Link<UnsafePointer<MustacheValue>>>? = scope.context
        var found: UnsafePointer<MustacheValue>?
        while let current = link {
            if let value = member(current.pointee.element, view, first) {
                found = value
                break
            }
            link = current.pointee.next
        }
        guard var value = found else { return nil }
        var position = first + 1
        while position < first + count {
            guard let member = member(value, view, position) else { return nil }
            value = member
            position += 1
        }
        return value
    }

    /// The member of `value` named by key `key` of `view`, if `value` is a dictionary that has it. Compares
    /// fingerprints, then the two strings' bits (equal bits are equal strings), then the strings.
    @inline(__always)
    private func member(_ value: UnsafePointer<MustacheValue>, _ view: ProgramView, _ key: Int) -> UnsafePointer<MustacheValue>? {
        guard let members = value.members, let base = members.baseAddress else { return nil }
        let fingerprint = view.fingerprints[key]
        let wanted = UnsafeRawPointer(view.keys + key)
        for position in 0..<members.count {
            let member = base + position
            guard Member.mayMatch(member.pointee.fingerprint, fingerprint) else { continue }
            let raw = UnsafeRawPointer(member)
            let bits = raw + keyOffset
            let sameBits = bits.load(as: UInt64.self) == wanted.load(as: UInt64.self)
                && bits.load(fromByteOffset: 8, as: UInt64.self) == wanted.load(fromByteOffset: 8, as: UInt64.self)
            if sameBits || member.pointee.key == view.keys[key] {
                return (raw + valueOffset).assumingMemoryBound(to: MustacheValue.self)
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
