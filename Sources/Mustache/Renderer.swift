/// Renders linked templates into one growing byte buffer.
struct Renderer {
    let templates: [Template]
    let limits: TemplateLimits
    var output: [UInt8] = []
    var steps = 0
    /// Where this render's output starts in `output` (a caller's buffer may hold earlier renders).
    var outputStart = 0

    init(templates: [Template], limits: TemplateLimits) {
        self.templates = templates
        self.limits = limits
    }

    /// Renders template `index` against `value` into `output`. Throws `TemplateError` when partials nest deeper than
    /// the limit (naming the chain) or the render takes more steps than allowed.
    mutating func render(template index: Int, value: MustacheValue) throws(TemplateError) {
        outputStart = output.count
        try Link.push(value, onto: nil) { (context) throws(TemplateError) in
            try Link.push(index, onto: nil) { (calls) throws(TemplateError) in
                let scope = Scope(context: context, indentation: nil, overrides: nil, calls: calls,
                                  partialDepth: 0, depth: 0)
                let program = templates[index].program
                try run(program, index, 0, program.instructions.count, scope)
            }
        }
    }

    /// Runs instructions `start..<end` of `program` (template `template`).
    private mutating func run(_ program: Program, _ template: Int, _ start: Int, _ end: Int, _ scope: Scope)
        throws(TemplateError) {
        steps &+= end - start + 1
        if steps > limits.maxRenderSteps || scope.depth > limits.maxRenderDepth || output.count - outputStart > limits.maxOutputBytes {
            throw budgetError(scope)
        }
        let instructions = UnsafeBufferPointer(program.instructionBuffer)
        let text = UnsafeBufferPointer(program.textBuffer)
        var index = start
        while index < end {
            let instruction = instructions[index]
            switch instruction.operation {
            case .text:
                let offset = Int(instruction.a)
                output.append(contentsOf: UnsafeBufferPointer(rebasing: text[offset..<offset + Int(instruction.b)]))
                index += 1
            case .lineStart:
                if let indentation = scope.indentation { indent(indentation) }
                index += 1
            case .variable, .rawVariable:
                if let value = lookup(program, instruction, scope) {
                    interpolate(value, escaped: instruction.operation == .variable)
                }
                index += 1
            case .section:
                let bodyEnd = Int(instruction.c)
                if let value = lookup(program, instruction, scope), value.isTruthy {
                    var inner = scope
                    inner.depth += 1
                    if case .array(let elements) = value {
                        for element in elements {
                            try Link.push(element, onto: scope.context) { (context) throws(TemplateError) in
                                inner.context = context
                                try run(program, template, index + 1, bodyEnd, inner)
                            }
                        }
                    } else {
                        try Link.push(value, onto: scope.context) { (context) throws(TemplateError) in
                            inner.context = context
                            try run(program, template, index + 1, bodyEnd, inner)
                        }
                    }
                }
                index = bodyEnd
            case .inverted:
                let bodyEnd = Int(instruction.c)
                if lookup(program, instruction, scope)?.isTruthy != true {
                    try run(program, template, index + 1, bodyEnd, scope)
                }
                index = bodyEnd
            case .partial:
                try expand(program.references[Int(instruction.a)], from: template, parent: nil, scope)
                index += 1
            case .parent:
                try expand(program.references[Int(instruction.a)], from: template,
                           parent: ParentCall(template: template, instruction: index), scope)
                index = Int(instruction.c)
            case .block:
                let block = program.blocks[Int(instruction.a)]
                let content = override(named: block.name, scope) ?? ParentCall(template: template, instruction: index)
                let contentProgram = templates[content.template].program
                let contentEnd = Int(contentProgram.instructions[content.instruction].c)
                try scope.indented(by: block.indentation.map { Indentation(template: template, range: $0) }) {
                    (inner) throws(TemplateError) in
                    try run(contentProgram, content.template, content.instruction + 1, contentEnd, inner)
                }
                index = Int(instruction.c)
            }
        }
    }

    /// Renders a partial, or a parent (whose body holds the overrides), in the current context.
    private mutating func expand(_ reference: Reference, from template: Int, parent: ParentCall?, _ scope: Scope)
        throws(TemplateError) {
        guard let index = reference.index else { return }
        guard scope.partialDepth < limits.maxPartialDepth else { throw cycleError(reference, index, scope) }
        let program = templates[index].program
        try Link.push(index, onto: scope.calls) { (calls) throws(TemplateError) in
            var inner = scope
            inner.calls = calls
            inner.partialDepth += 1
            try inner.indented(by: reference.indentation.map { Indentation(template: template, range: $0) }) {
                (inner) throws(TemplateError) in
                if let parent {
                    try Link.push(parent, onto: inner.overrides) { (overrides) throws(TemplateError) in
                        var inner = inner
                        inner.overrides = overrides
                        try run(program, index, 0, program.instructions.count, inner)
                    }
                } else {
                    try run(program, index, 0, program.instructions.count, inner)
                }
            }
        }
    }

    /// The block instruction overriding block `name`, from the outermost parent that gives one.
    private func override(named name: String, _ scope: Scope) -> ParentCall? {
        var found: ParentCall?
        var link = scope.overrides
        while let current = link {
            let parent = current.pointee.element
            let program = templates[parent.template].program
            var index = parent.instruction + 1
            let end = Int(program.instructions[parent.instruction].c)
            while index < end {
                let instruction = program.instructions[index]
                if instruction.operation == .block, program.blocks[Int(instruction.a)].name == name {
                    found = ParentCall(template: parent.template, instruction: index)
                    break
                }
                index = instruction.operation == .block ? Int(instruction.c) : index + 1
            }
            link = current.pointee.next
        }
        return found
    }

    /// The value a name resolves to: the first key through the context stack, the others inside it.
    @inline(__always)
    private func lookup(_ program: Program, _ instruction: Instruction, _ scope: Scope) -> MustacheValue? {
        let count = Int(instruction.b)
        guard count > 0 else { return scope.context.pointee.element }
        let first = Int(instruction.a)
        let key = program.keys[first]
        var link: UnsafePointer<Link<MustacheValue>>? = scope.context
        var found: MustacheValue?
        while let current = link {
            if case .dictionary(let members) = current.pointee.element, let value = members[key] {
                found = value
                break
            }
            link = current.pointee.next
        }
        guard var value = found else { return nil }
        var position = first + 1
        while position < first + count {
            guard case .dictionary(let members) = value, let member = members[program.keys[position]] else {
                return nil
            }
            value = member
            position += 1
        }
        return value
    }

    private mutating func indent(_ link: UnsafePointer<Link<Indentation>>) {
        if let next = link.pointee.next { indent(next) }
        let piece = link.pointee.element
        output.append(contentsOf: UnsafeBufferPointer(rebasing: templates[piece.template].program.textBuffer[piece.range]))
    }
}
