extension Renderer {
    /// Renders the block at instruction `index`: the outermost parent's override of it, or its own content.
    @inline(never)
    mutating func block(_ template: Int, _ index: Int, _ scope: Scope) throws(TemplateError) {
        let view = views[template]
        let block = view.blocks[Int(view.instructions[index].blockTag)]
        let content = override(named: block.name, scope) ?? ParentCall(template: template, instruction: index)
        let contentEnd = Int(views[content.template].instructions[content.instruction].bodyEnd)
        let inner = indented(scope, view.text, block.indentStart, block.indentCount)
        try run(content.template, content.instruction + 1, contentEnd, inner)
    }

    /// Renders reference `number` of `template`: a partial, or a parent (whose body holds the overrides), in the
    /// current context.
    @inline(never)
    mutating func expand(_ template: Int, _ number: Int, parent: ParentCall?, _ scope: Scope)
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
    func override(named name: Int32, _ scope: Scope) -> ParentCall? {
        var found: ParentCall?
        var link = scope.overrides
        while let current = link {
            let parent = current.pointee.element
            let view = views[parent.template]
            var index = parent.instruction + 1
            let end = Int(view.instructions[parent.instruction].bodyEnd)
            while index < end {
                let instruction = view.instructions[index]
                if instruction.operation == .block, view.blocks[Int(instruction.blockTag)].name == name {
                    found = ParentCall(template: parent.template, instruction: index)
                    break
                }
                index = instruction.operation == .block ? Int(instruction.bodyEnd) : index + 1
            }
            link = current.pointee.next
        }
        return found
    }

    /// The scope one level deeper, with `count` bytes of `text` from `start` added to the indentation (a
    /// standalone tag's), or with no indentation at all (`count` -1: an inline tag, whose content continues the
    /// current line).
    mutating func indented(_ scope: Scope, _ text: UnsafePointer<UInt8>, _ start: Int32, _ count: Int32) -> Scope {
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
            let capacity = max(needed, indentationCapacity * 2)
            let grown = Self.indentationStack(capacity)
            grown.base.update(from: indentation.base, count: scope.indentTop)
            indentation = grown
            indentationCapacity = capacity
        }
        if scope.indentEnd != scope.indentTop {
            // Not on top of the stack (an inner scope cleared it): copy it up first.
            Self.copy(indentation.base + scope.indentStart, to: indentation.base + scope.indentTop, count: length)
            inner.indentStart = scope.indentTop
            inner.indentEnd = scope.indentTop + length
        }
        Self.copy(text + Int(start), to: indentation.base + inner.indentEnd, count: Int(count))
        inner.indentEnd += Int(count)
        inner.indentTop = inner.indentEnd
        return inner
    }

    /// Copies `count` bytes forwards, byte by byte (indentation is short; `memmove` would cost more than the copy).
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        for offset in 0..<count { target[offset] = source[offset] }
    }
}
