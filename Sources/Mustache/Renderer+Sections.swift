extension Renderer {
    /// Enters the body of the section at `instruction`, one level deeper than `scope`, with `value` on top of the
    /// context stack: the first of `elements` when a list, nil for an inverted section (the context stays).
    @inline(__always)
    mutating func open(
        _ instruction: UnsafePointer<Instruction>, _ view: ProgramView, _ value: UnsafePointer<MustacheValue>?,
        elements: Int, _ scope: inout Scope, _ bodyEnd: inout UnsafePointer<Instruction>,
        at out: UnsafeMutablePointer<UInt8>
    ) throws(TemplateError) {
        guard openSections < sectionCapacity else { throw budgetError(scope, at: out) }
        let end = view.instructions + Int(instruction.pointee.bodyEnd)
        let section = sections.base + openSections
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
    mutating func charge(_ instructions: Int, _ scope: Scope, at out: UnsafeMutablePointer<UInt8>)
        throws(TemplateError) {
        steps &+= instructions &+ 1
        if steps > limits.maxRenderSteps || scope.depth > limits.maxRenderDepth
            || out - output.base > limits.maxOutputBytes {
            throw budgetError(scope, at: out)
        }
    }

    /// Writes the text a variable or section tag has before it at `out`, after the indentation if it starts a line.
    @inline(__always)
    mutating func prefix(
        _ instruction: InstructionRef, _ view: ProgramView, _ scope: Scope, _ out: inout UnsafeMutablePointer<UInt8>,
        _ limit: inout UnsafeMutablePointer<UInt8>
    ) {
        let indent = instruction.prefix == .line ? scope.indentEnd &- scope.indentStart : 0
        let count = Int(instruction.prefixCount)
        let needed = indent &+ count &+ OutputBuffer.padding
        if needed > limit - out { (out, limit) = makeRoom(needed, after: out) }
        out = OutputBuffer.copyPadded(indentation.base + scope.indentStart, count: indent, to: out)
        out = OutputBuffer.copyPadded(view.text + Int(instruction.prefixStart), count: count, to: out)
    }

    /// Writes the text a variable or section tag has after itself at `out`.
    @inline(__always)
    mutating func suffix(
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
}
