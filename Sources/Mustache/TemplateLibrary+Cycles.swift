extension TemplateLibrary {
    /// Refuses partials and parents that call each other unconditionally (outside any section or block), which
    /// could only recurse until the render limit. Calls inside a section may end with the data, so they are left
    /// to the render-time depth limit. Throws `TemplateError` at the tag that closes the cycle, naming the chain.
    func checkCycles() throws(TemplateError) {
        let edges = templates.map { Self.unconditionalCalls($0.program) }
        // 0: not visited, 1: on the current path, 2: done.
        var state = [UInt8](repeating: 0, count: templates.count)
        for start in templates.indices where state[start] == 0 {
            var path: [(template: Int, next: Int)] = [(start, 0)]
            state[start] = 1
            while let top = path.last {
                guard top.next < edges[top.template].count else {
                    state[top.template] = 2
                    path.removeLast()
                    continue
                }
                path[path.count - 1].next += 1
                let reference = edges[top.template][top.next]
                guard let target = reference.index else { continue }
                if state[target] == 1 {
                    let from = path.firstIndex { $0.template == target } ?? 0
                    let names = (path[from...].map(\.template) + [target]).map { templates[$0].name }
                    throw TemplateError(
                        file: templates[top.template].file, line: reference.line, column: reference.column,
                        message: "\"\(reference.name)\" is called in a cycle that never ends: "
                            + names.joined(separator: " → "))
                }
                if state[target] == 0 {
                    state[target] = 1
                    path.append((target, 0))
                }
            }
        }
    }

    /// Partial and parent tags rendered whatever the data: those not inside a section, inverted section or block.
    private static func unconditionalCalls(_ program: Program) -> [Reference] {
        var calls: [Reference] = []
        var index = 0
        while index < program.instructions.count {
            let instruction = program.instructions[index]
            switch instruction.operation {
            case .partial:
                calls.append(program.references[Int(instruction.reference)])
                index += 1
            case .parent:
                calls.append(program.references[Int(instruction.reference)])
                index = Int(instruction.bodyEnd)
            case .section, .inverted, .block:
                index = Int(instruction.bodyEnd)
            default:
                index += 1
            }
        }
        return calls
    }
}
