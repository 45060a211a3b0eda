/// Builds the node tree from line tokens, checking that sections, parents and blocks open and close in order.
struct TreeBuilder {
    let source: [UInt8]
    let lines: LineIndex
    let file: String
    let limits: TemplateLimits

    /// A section, inverted section, parent or block still open, with the nodes gathered inside it so far.
    private struct Frame {
        let tag: RawTag
        let indentation: Range<Int>?
        var nodes: [Node] = []
        var text: [UInt8] = []

        mutating func flushText() {
            if !text.isEmpty {
                nodes.append(.text(text))
                text.removeAll()
            }
        }
    }

    /// The tree for `tokens`. Throws `TemplateError` for a closing tag that does not match, a section never closed,
    /// or nesting deeper than the limit.
    func build(_ tokens: [LineToken]) throws(TemplateError) -> [Node] {
        var root = Frame(tag: RawTag(kind: .section, name: "", start: 0, end: 0), indentation: nil)
        var stack: [Frame] = []
        for token in tokens {
            switch token {
            case .text(let range):
                if !range.isEmpty { append(text: range, to: &stack, root: &root) }
            case .lineStart:
                append(.lineStart, to: &stack, root: &root)
            case .tag(let tag, let indentation):
                switch tag.kind {
                case .comment, .delimiters:
                    break
                case .variable:
                    append(.variable(Name(tag.name), escaped: true), to: &stack, root: &root)
                case .unescaped:
                    append(.variable(Name(tag.name), escaped: false), to: &stack, root: &root)
                case .partial:
                    append(.partial(reference(tag, indentation)), to: &stack, root: &root)
                case .section, .inverted, .parent, .block:
                    guard stack.count < limits.maxNesting else {
                        throw error(at: tag.start, "\(noun(tag.kind)) \"\(tag.name)\" nests deeper than \(limits.maxNesting) levels")
                    }
                    stack.append(Frame(tag: tag, indentation: indentation))
                case .close:
                    guard var frame = stack.popLast() else {
                        throw error(at: tag.start, "closing tag \"\(tag.name)\" has no open section")
                    }
                    guard frame.tag.name == tag.name else {
                        let (line, column) = lines.position(of: frame.tag.start)
                        throw error(at: tag.start, "closing tag \"\(tag.name)\" does not match \(noun(frame.tag.kind)) \"\(frame.tag.name)\" opened at \(line):\(column)")
                    }
                    frame.flushText()
                    append(node(for: frame), to: &stack, root: &root)
                }
            }
        }
        if let open = stack.last {
            let (line, column) = lines.position(of: open.tag.start)
            throw error(at: source.count, "\(noun(open.tag.kind)) \"\(open.tag.name)\" opened at \(line):\(column) is never closed")
        }
        root.flushText()
        return root.nodes
    }

    private func node(for frame: Frame) -> Node {
        let name = frame.tag.name
        switch frame.tag.kind {
        case .inverted:
            return .inverted(Name(name), frame.nodes)
        case .block:
            return .block(Block(name: name, nodes: frame.nodes, indentation: frame.indentation.map { Array(source[$0]) }))
        case .parent:
            var blocks: [Block] = []
            for case .block(let block) in frame.nodes where !blocks.contains(where: { $0.name == block.name }) {
                blocks.append(block)
            }
            return .parent(reference(frame.tag, frame.indentation), blocks)
        default:
            return .section(Name(name), frame.nodes)
        }
    }

    private func reference(_ tag: RawTag, _ indentation: Range<Int>?) -> Reference {
        let (line, column) = lines.position(of: tag.start)
        return Reference(name: tag.name, index: nil, indentation: indentation.map { Array(source[$0]) },
                         line: line, column: column)
    }

    private func append(text range: Range<Int>, to stack: inout [Frame], root: inout Frame) {
        if stack.isEmpty {
            root.text.append(contentsOf: source[range])
        } else {
            stack[stack.count - 1].text.append(contentsOf: source[range])
        }
    }

    private func append(_ node: Node, to stack: inout [Frame], root: inout Frame) {
        if stack.isEmpty {
            root.flushText()
            root.nodes.append(node)
        } else {
            stack[stack.count - 1].flushText()
            stack[stack.count - 1].nodes.append(node)
        }
    }

    private func noun(_ kind: TagKind) -> String {
        switch kind {
        case .inverted: return "inverted section"
        case .parent: return "parent"
        case .block: return "block"
        default: return "section"
        }
    }

    private func error(at offset: Int, _ message: String) -> TemplateError {
        let (line, column) = lines.position(of: offset)
        return TemplateError(file: file, line: line, column: column, message: message)
    }
}
