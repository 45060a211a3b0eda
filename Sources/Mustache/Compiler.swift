/// Compiles line tokens into a `Program`, checking that sections, parents and blocks open and close in order.
struct Compiler {
    let source: [UInt8]
    let lines: LineIndex
    let file: String
    let limits: TemplateLimits

    /// A section, inverted section, parent or block still open.
    private struct Frame {
        let tag: RawTag
        let instruction: Int
        /// Whether its content is compiled (not inside a parent, where only blocks count).
        let emits: Bool
    }

    private var instructions: [Instruction] = []
    private var text: [UInt8] = []
    private var keys: [String] = []
    private var keyIndex: [String: Int32] = [:]
    private var references: [Reference] = []
    private var blocks: [BlockTag] = []
    /// The text instruction new text may extend, while nothing else was emitted after it.
    private var openText: Int?
    /// The line start instruction just emitted, which text right after it joins (as a `lineText`).
    private var openLineStart: Int?
    /// The variable or section just emitted or closed, whose suffix text right after it joins.
    private var openSuffix: Int?
    private var lastCopy: (Range<Int>, Range<Int>)?

    init(source: [UInt8], lines: LineIndex, file: String, limits: TemplateLimits) {
        self.source = source
        self.lines = lines
        self.file = file
        self.limits = limits
    }

    /// The program for `tokens`. Throws `TemplateError` for a closing tag that does not match, a section never
    /// closed, or nesting deeper than the limit.
    mutating func compile(_ tokens: [LineToken]) throws(TemplateError) -> Program {
        var stack: [Frame] = []
        for token in tokens {
            // Inside a parent only blocks count; elsewhere inside it nothing is compiled.
            let emits = stack.last.map { $0.emits && $0.tag.kind != .parent } ?? true
            switch token {
            case .text(let range):
                if emits, !range.isEmpty { appendText(range) }
            case .lineStart:
                if emits {
                    emit(Instruction(.lineStart))
                    openLineStart = instructions.count - 1
                }
            case .tag(let tag, let indentation):
                switch tag.kind {
                case .comment, .delimiters:
                    break
                case .variable, .unescaped:
                    guard emits else { break }
                    let (first, count) = key(tag.name)
                    openSuffix = emitTag(Instruction(tag.kind == .variable ? .variable : .rawVariable, firstKey: first, keyCount: count))
                case .partial:
                    guard emits else { break }
                    emit(Instruction(.partial, reference: reference(tag, indentation)))
                case .section, .inverted, .parent, .block:
                    guard stack.count < limits.maxNesting else {
                        throw error(at: tag.start, "\(noun(tag.kind)) \"\(tag.name)\" nests deeper than \(limits.maxNesting) levels")
                    }
                    let opens = emits || (tag.kind == .block && stack.last?.tag.kind == .parent && stack.last?.emits == true)
                    stack.append(Frame(tag: tag, instruction: instructions.count, emits: opens))
                    guard opens else { break }
                    switch tag.kind {
                    case .parent:
                        emit(Instruction(.parent, reference: reference(tag, indentation)))
                    case .block:
                        let copied = indentation.map { copyText($0) }
                        blocks.append(BlockTag(name: tag.name, indentation: copied))
                        emit(Instruction(blockTag: Int32(blocks.count - 1)))
                    default:
                        let (first, count) = key(tag.name)
                        let index = emitTag(Instruction(tag.kind == .section ? .section : .inverted, firstKey: first, keyCount: count))
                        stack[stack.count - 1] = Frame(tag: tag, instruction: index, emits: opens)
                    }
                case .close:
                    guard let frame = stack.popLast() else {
                        throw error(at: tag.start, "closing tag \"\(tag.name)\" has no open section")
                    }
                    guard frame.tag.name == tag.name else {
                        let (line, column) = lines.position(of: frame.tag.start)
                        throw error(at: tag.start, "closing tag \"\(tag.name)\" does not match \(noun(frame.tag.kind)) \"\(frame.tag.name)\" opened at \(line):\(column)")
                    }
                    if frame.emits {
                        instructions[frame.instruction].bodyEnd = Int32(instructions.count)
                        openText = nil
                        openLineStart = nil
                        openSuffix = frame.tag.kind == .section || frame.tag.kind == .inverted ? frame.instruction : nil
                    }
                }
            }
        }
        if let open = stack.last {
            let (line, column) = lines.position(of: open.tag.start)
            throw error(at: source.count, "\(noun(open.tag.kind)) \"\(open.tag.name)\" opened at \(line):\(column) is never closed")
        }
        return Program(instructions: instructions, text: text, keys: keys, references: references, blocks: blocks)
    }

    private mutating func emit(_ instruction: Instruction) {
        instructions.append(instruction)
        openText = nil
        openLineStart = nil
        openSuffix = nil
    }

    /// Emits a variable or section tag, taking in the text or line start just before it as its prefix (one
    /// instruction instead of two). Returns the tag's instruction index.
    @discardableResult
    private mutating func emitTag(_ tag: Instruction) -> Int {
        var tag = tag
        let last = instructions.count - 1
        if let open = openText, open == last, instructions[open].textCount < Int32(UInt16.max) {
            let text = instructions[open]
            tag.prefix = text.operation == .lineText ? .line : .text
            tag.prefixStart = text.textStart
            tag.prefixCount = UInt16(text.textCount)
        } else if let open = openLineStart, open == last {
            tag.prefix = .line
        } else {
            emit(tag)
            return last + 1
        }
        instructions[last] = tag
        openText = nil
        openLineStart = nil
        openSuffix = nil
        return last
    }

    private mutating func appendText(_ range: Range<Int>) {
        if let index = openText {
            instructions[index].textCount += Int32(range.count)
            text.append(contentsOf: source[range])
        } else if let index = openSuffix, appendSuffix(range, to: index) {
            return
        } else if let index = openLineStart {
            instructions[index] = Instruction(.lineText, textStart: Int32(text.count), textCount: Int32(range.count))
            text.append(contentsOf: source[range])
            openLineStart = nil
            openText = index
        } else {
            emit(Instruction(.text, textStart: Int32(text.count), textCount: Int32(range.count)))
            text.append(contentsOf: source[range])
            openText = instructions.count - 1
        }
    }

    /// Adds `range` to the suffix of instruction `index` when it fits (and the suffix is the end of the text);
    /// false when it does not.
    private mutating func appendSuffix(_ range: Range<Int>, to index: Int) -> Bool {
        let instruction = instructions[index]
        let count = Int(instruction.suffixCount) + range.count
        guard count < Int(UInt16.max), instruction.suffixCount == 0 || Int(instruction.suffixStart) + Int(instruction.suffixCount) == text.count
        else { return false }
        if instruction.suffixCount == 0 { instructions[index].suffixStart = Int32(text.count) }
        instructions[index].suffixCount = UInt16(count)
        text.append(contentsOf: source[range])
        return true
    }

    /// `range` of the source copied into the program's text; the tags of one line share their indentation's copy.
    private mutating func copyText(_ range: Range<Int>) -> Range<Int> {
        if let (copied, copy) = lastCopy, copied == range { return copy }
        let start = text.count
        text.append(contentsOf: source[range])
        lastCopy = (range, start..<text.count)
        return start..<text.count
    }

    /// The keys of a dotted name, stored once per distinct name.
    private mutating func key(_ name: String) -> (Int32, Int32) {
        if name == "." { return (0, 0) }
        let components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if let first = keyIndex[name] { return (first, Int32(components.count)) }
        let first = Int32(keys.count)
        keys.append(contentsOf: components)
        keyIndex[name] = first
        return (first, Int32(components.count))
    }

    private mutating func reference(_ tag: RawTag, _ indentation: Range<Int>?) -> Int32 {
        let (line, column) = lines.position(of: tag.start)
        let copied = indentation.map { copyText($0) }
        references.append(Reference(name: tag.name, index: nil, indentation: copied, line: line, column: column))
        return Int32(references.count - 1)
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
