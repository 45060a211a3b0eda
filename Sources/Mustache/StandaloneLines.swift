/// A token after the standalone-line rules: literal text, the start of a kept line, or a tag.
enum LineToken: Sendable {
    case text(Range<Int>)
    /// A kept, non-empty template line starts here (where partial indentation goes).
    case lineStart
    /// A tag; `indentation` is the whitespace before it when it stands alone on its line (nil inline).
    case tag(RawTag, indentation: Range<Int>?)
}

/// Applies the spec's standalone rule: a line holding only whitespace and one non-interpolation tag (or only parent
/// and block tags, e.g. `{{<layout}}{{$body}}`) renders nothing; its leading whitespace becomes the tag's indentation.
struct StandaloneLines {
    let source: [UInt8]

    func apply(_ tokens: [RawToken]) -> [LineToken] {
        var output: [LineToken] = []
        output.reserveCapacity(tokens.count * 2)
        var openers: [RawTag] = []
        var line: [RawToken] = []
        for token in tokens {
            switch token {
            case .tag:
                line.append(token)
            case .text(let range):
                var start = range.lowerBound
                var index = start
                while index < range.upperBound {
                    if source[index] == UInt8(ascii: "\n") {
                        line.append(.text(start..<index + 1))
                        flush(line, into: &output, openers: &openers)
                        line.removeAll(keepingCapacity: true)
                        start = index + 1
                    }
                    index += 1
                }
                if start < range.upperBound { line.append(.text(start..<range.upperBound)) }
            }
        }
        if !line.isEmpty { flush(line, into: &output, openers: &openers) }
        return output
    }

    /// What a tag is once closing tags are matched to their openers.
    private enum Role { case inheritance, blockOpen, blockClose, other }

    private func flush(_ line: [RawToken], into output: inout [LineToken], openers: inout [RawTag]) {
        var blank = true
        var tags: [RawTag] = []
        var roles: [Role] = []
        var newline: Range<Int>?
        var bareNewline = false
        for (position, piece) in line.enumerated() {
            switch piece {
            case .text(let range):
                var content = range
                if position == line.count - 1, content.upperBound > content.lowerBound,
                   source[content.upperBound - 1] == UInt8(ascii: "\n") {
                    content = content.lowerBound..<content.upperBound - 1
                    if content.upperBound > content.lowerBound, source[content.upperBound - 1] == UInt8(ascii: "\r") {
                        content = content.lowerBound..<content.upperBound - 1
                    }
                    newline = content.upperBound..<range.upperBound
                    bareNewline = line.count == 1 && content.isEmpty
                }
                if source[content].contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) {
                    blank = false
                }
            case .tag(let tag):
                tags.append(tag)
                roles.append(role(of: tag, openers: &openers))
            }
        }
        let standalone: Bool
        if !blank || tags.isEmpty {
            standalone = false
        } else if tags.count == 1 {
            standalone = tags[0].kind.canStandalone
        } else {
            standalone = !roles.contains(.other)
        }
        guard standalone else {
            if !bareNewline { output.append(.lineStart) }
            for piece in line {
                switch piece {
                case .text(let range): output.append(.text(range))
                case .tag(let tag): output.append(.tag(tag, indentation: nil))
                }
            }
            return
        }
        let lineStart: Int
        switch line[0] {
        case .text(let range): lineStart = range.lowerBound
        case .tag(let tag): lineStart = tag.start
        }
        let indentation = lineStart..<tags[0].start
        for tag in tags { output.append(.tag(tag, indentation: indentation)) }
        // `{{$name}}{{/name}}` alone on a line keeps its newline: the block's content stands in for the line.
        if tags.count == 2, roles[0] == .blockOpen, roles[1] == .blockClose, tags[0].end == tags[1].start,
           let newline {
            output.append(.text(newline))
        }
    }

    private func role(of tag: RawTag, openers: inout [RawTag]) -> Role {
        switch tag.kind {
        case .section, .inverted:
            openers.append(tag)
            return .other
        case .parent:
            openers.append(tag)
            return .inheritance
        case .block:
            openers.append(tag)
            return .blockOpen
        case .close:
            guard let opener = openers.last, opener.name == tag.name else { return .other }
            openers.removeLast()
            switch opener.kind {
            case .parent: return .inheritance
            case .block: return .blockClose
            default: return .other
            }
        default:
            return .other
        }
    }
}
