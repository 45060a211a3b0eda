/// Re-indents standalone blocks, as the inheritance spec asks: the indentation a block's content has where it is
/// written is removed (its common leading whitespace), and the indentation of the block where it expands is added
/// at render time. Works on line tokens, before the tree is built.
struct BlockIndentation {
    let source: [UInt8]

    func apply(_ tokens: [LineToken]) -> [LineToken] {
        guard let closes = matchingCloses(tokens) else { return tokens }
        var tokens = tokens
        // Intrinsic indentation of every standalone block: the common leading whitespace of its content's lines.
        var intrinsic: [Int: Range<Int>?] = [:]
        for (open, close) in closes {
            guard case .tag(let tag, let indentation) = tokens[open], tag.kind == .block, indentation != nil else {
                continue
            }
            intrinsic[open] = commonIndentation(tokens, open + 1..<close)
        }
        guard !intrinsic.isEmpty else { return tokens }
        let closeIndices = Set(intrinsic.keys.compactMap { closes[$0] })
        var prefixes: [Range<Int>] = [0..<0]
        var index = 0
        while index < tokens.count {
            let prefix = prefixes[prefixes.count - 1]
            if closeIndices.contains(index) { prefixes.removeLast() }
            switch tokens[index] {
            case .lineStart:
                if index + 1 < tokens.count, case .text(let range) = tokens[index + 1] {
                    tokens[index + 1] = .text(strip(range, prefix))
                }
            case .tag(let tag, let indentation?):
                if let content = intrinsic[index] {
                    // A block: its expansion indentation is that of its content (or of its tag when empty),
                    // relative to the block around it.
                    tokens[index] = .tag(tag, indentation: strip(content ?? indentation, prefix))
                    prefixes.append(content ?? (indentation.lowerBound..<indentation.lowerBound))
                } else if !closeIndices.contains(index) {
                    tokens[index] = .tag(tag, indentation: strip(indentation, prefix))
                }
            default:
                break
            }
            index += 1
        }
        return tokens
    }

    /// Pairs each opening tag's index with its closing tag's index; nil if tags do not nest (the tree builder
    /// reports that).
    private func matchingCloses(_ tokens: [LineToken]) -> [Int: Int]? {
        var stack: [(index: Int, name: String)] = []
        var closes: [Int: Int] = [:]
        for (index, token) in tokens.enumerated() {
            guard case .tag(let tag, _) = token else { continue }
            switch tag.kind {
            case .section, .inverted, .parent, .block:
                stack.append((index, tag.name))
            case .close:
                guard let open = stack.popLast(), open.name == tag.name else { return nil }
                closes[open.index] = index
            default:
                break
            }
        }
        return stack.isEmpty ? closes : nil
    }

    /// The longest whitespace prefix shared by every non-blank line and every standalone tag in `range`.
    private func commonIndentation(_ tokens: [LineToken], _ range: Range<Int>) -> Range<Int>? {
        var common: Range<Int>?
        func include(_ indentation: Range<Int>) {
            guard let current = common else {
                common = indentation
                return
            }
            var length = 0
            while length < current.count, length < indentation.count,
                  source[current.lowerBound + length] == source[indentation.lowerBound + length] { length += 1 }
            common = current.lowerBound..<current.lowerBound + length
        }
        for index in range {
            switch tokens[index] {
            case .lineStart:
                guard index + 1 < range.upperBound else { continue }
                switch tokens[index + 1] {
                case .text(let text):
                    var end = text.lowerBound
                    while end < text.upperBound, source[end] == UInt8(ascii: " ") || source[end] == UInt8(ascii: "\t") {
                        end += 1
                    }
                    if end < text.upperBound, source[end] == UInt8(ascii: "\n") || source[end] == UInt8(ascii: "\r") {
                        continue
                    }
                    if end == text.upperBound, index + 2 >= range.upperBound { continue }
                    include(text.lowerBound..<end)
                case .tag(let tag, _):
                    include(tag.start..<tag.start)
                case .lineStart:
                    continue
                }
            case .tag(_, let indentation?):
                include(indentation)
            default:
                continue
            }
        }
        return common
    }

    /// `range` without as much of `prefix` as it starts with.
    private func strip(_ range: Range<Int>, _ prefix: Range<Int>) -> Range<Int> {
        var length = 0
        while length < prefix.count, length < range.count,
              source[range.lowerBound + length] == source[prefix.lowerBound + length] { length += 1 }
        return range.lowerBound + length..<range.upperBound
    }
}
