/// Renders linked templates into one growing byte buffer.
struct Renderer {
    let templates: [Template]
    let limits: TemplateLimits
    var output: [UInt8] = []
    var steps = 0

    /// Renders template `index` against `value` into `output`. Throws `TemplateError` when partials nest deeper than
    /// the limit (naming the chain) or the render takes more steps than allowed.
    mutating func render(template index: Int, value: MustacheValue) throws(TemplateError) {
        try Link.push(value, onto: nil) { (context) throws(TemplateError) in
            try Link.push(index, onto: nil) { (calls) throws(TemplateError) in
                let scope = Scope(context: context, indentation: nil, overrides: nil, calls: calls,
                                  partialDepth: 0, depth: 0)
                try render(templates[index].nodes, scope)
            }
        }
    }

    private mutating func render(_ nodes: [Node], _ scope: Scope) throws(TemplateError) {
        steps &+= nodes.count + 1
        if steps > limits.maxRenderSteps || scope.depth > limits.maxRenderDepth { throw budgetError(scope) }
        for node in nodes {
            switch node {
            case .text(let bytes):
                output.append(contentsOf: bytes)
            case .lineStart:
                if let indentation = scope.indentation { indent(indentation) }
            case .variable(let name, let escaped):
                if let value = lookup(name, scope) { interpolate(value, escaped: escaped) }
            case .section(let name, let children):
                guard let value = lookup(name, scope), value.isTruthy else { continue }
                var inner = scope
                inner.depth += 1
                if case .array(let elements) = value {
                    for element in elements {
                        try Link.push(element, onto: scope.context) { (context) throws(TemplateError) in
                            inner.context = context
                            try render(children, inner)
                        }
                    }
                } else {
                    try Link.push(value, onto: scope.context) { (context) throws(TemplateError) in
                        inner.context = context
                        try render(children, inner)
                    }
                }
            case .inverted(let name, let children):
                if lookup(name, scope)?.isTruthy != true { try render(children, scope) }
            case .partial(let reference):
                try expand(reference, blocks: nil, scope)
            case .parent(let reference, let blocks):
                try expand(reference, blocks: blocks, scope)
            case .block(let block):
                let content = override(named: block.name, scope) ?? block
                try scope.indented(by: block.indentation) { (inner) throws(TemplateError) in
                    try render(content.nodes, inner)
                }
            }
        }
    }

    /// Renders a partial, or a parent with its blocks as overrides, in the current context.
    private mutating func expand(_ reference: Reference, blocks: [Block]?, _ scope: Scope) throws(TemplateError) {
        guard let index = reference.index else { return }
        guard scope.partialDepth < limits.maxPartialDepth else { throw cycleError(reference, index, scope) }
        try Link.push(index, onto: scope.calls) { (calls) throws(TemplateError) in
            var inner = scope
            inner.calls = calls
            inner.partialDepth += 1
            try inner.indented(by: reference.indentation) { (inner) throws(TemplateError) in
                if let blocks {
                    try Link.push(blocks, onto: inner.overrides) { (overrides) throws(TemplateError) in
                        var inner = inner
                        inner.overrides = overrides
                        try render(templates[index].nodes, inner)
                    }
                } else {
                    try render(templates[index].nodes, inner)
                }
            }
        }
    }

    /// The override for block `name` from the outermost parent that gives one.
    private func override(named name: String, _ scope: Scope) -> Block? {
        var found: Block?
        var link = scope.overrides
        while let current = link {
            if let block = current.pointee.element.first(where: { $0.name == name }) { found = block }
            link = current.pointee.next
        }
        return found
    }

    /// The value a name resolves to: the first component through the context stack, the rest inside it.
    private func lookup(_ name: Name, _ scope: Scope) -> MustacheValue? {
        guard let first = name.components.first else { return scope.context.pointee.element }
        var link: UnsafePointer<Link<MustacheValue>>? = scope.context
        var found: MustacheValue?
        while let current = link {
            if let value = current.pointee.element.member(first) {
                found = value
                break
            }
            link = current.pointee.next
        }
        guard var value = found else { return nil }
        for component in name.components.dropFirst() {
            guard let member = value.member(component) else { return nil }
            value = member
        }
        return value
    }

    private mutating func indent(_ link: UnsafePointer<Link<[UInt8]>>) {
        if let next = link.pointee.next { indent(next) }
        output.append(contentsOf: link.pointee.element)
    }
}
