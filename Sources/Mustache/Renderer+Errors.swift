extension Renderer {
    /// The error for partials nested past the limit, naming the cycle that got there.
    func cycleError(_ reference: Reference, _ index: Int, _ scope: Scope) -> TemplateError {
        var chain: [Int] = []
        var link: UnsafePointer<Link<Int>>? = scope.calls
        while let current = link {
            chain.append(current.pointee.element)
            link = current.pointee.next
        }
        chain.reverse()
        let start = chain.lastIndex(of: index) ?? 0
        let names = (chain[start...] + [index]).map { templates[$0].name }
        return TemplateError(
            file: templates[scope.calls.pointee.element].file, line: reference.line, column: reference.column,
            message: "\"\(reference.name)\" recurses without end: \(names.joined(separator: " → ")) "
                + "(partials and parents nest deeper than \(limits.maxPartialDepth))")
    }

    /// The error for a render that nests or works past its limits, with the output written up to `out`.
    mutating func budgetError(_ scope: Scope, at out: UnsafeMutablePointer<UInt8>) -> TemplateError {
        output.written(upTo: out)
        return TemplateError(
            file: templates[scope.calls.pointee.element].file, line: 0, column: 0,
            message: "rendering stopped after \(steps) steps, \(output.count) bytes, at nesting depth \(scope.depth) "
                + "(limits: \(limits.maxRenderSteps) steps, \(limits.maxOutputBytes) bytes, depth \(limits.maxRenderDepth)); "
                + "look for a section or partial that multiplies or repeats without end")
    }
}
