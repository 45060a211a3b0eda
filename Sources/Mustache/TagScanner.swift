/// The kind of a tag, from the character after its opening delimiter.
enum TagKind: Sendable, Equatable {
    case variable, unescaped, section, inverted, close, comment, partial, parent, block, delimiters

    /// Whether a tag of this kind alone on a line takes the line with it (spec "standalone" tags).
    var canStandalone: Bool { self != .variable && self != .unescaped }
}

/// A tag as scanned: its kind, trimmed name and where it sits in the source (byte offsets).
struct RawTag: Sendable {
    var kind: TagKind
    var name: String
    /// Offset of the opening delimiter.
    var start: Int
    /// Offset just past the closing delimiter.
    var end: Int
}

/// A piece of scanned source: literal text or a tag.
enum RawToken: Sendable {
    case text(Range<Int>)
    case tag(RawTag)
}

/// Splits template source into text and tags, following set-delimiter tags as it goes.
struct TagScanner {
    let source: [UInt8]
    let lines: LineIndex

    /// Scans all of `source`. Throws `TemplateError` for an unclosed tag, an empty name or a bad delimiter tag.
    func scan(file: String) throws(TemplateError) -> [RawToken] {
        var tokens: [RawToken] = []
        var open: [UInt8] = Array("{{".utf8)
        var close: [UInt8] = Array("}}".utf8)
        var position = 0
        let count = source.count
        while position < count {
            guard let start = find(open, from: position) else {
                tokens.append(.text(position..<count))
                break
            }
            if start > position { tokens.append(.text(position..<start)) }
            let inner = start + open.count
            if inner < count, source[inner] == UInt8(ascii: "{") {
                guard let stop = find([UInt8(ascii: "}")] + close, from: inner + 1) else {
                    throw error(file, start, "tag is never closed (expected \"}\(text(close))\")")
                }
                let name = try checkedName(inner + 1..<stop, file: file, tagStart: start)
                tokens.append(.tag(RawTag(kind: .unescaped, name: name, start: start, end: stop + 1 + close.count)))
                position = stop + 1 + close.count
                continue
            }
            guard let stop = find(close, from: inner) else {
                throw error(file, start, "tag is never closed (expected \"\(text(close))\")")
            }
            let end = stop + close.count
            position = end
            guard inner < stop else { throw error(file, start, "empty tag \"\(text(open))\(text(close))\"") }
            let kind: TagKind
            switch source[inner] {
            case UInt8(ascii: "#"): kind = .section
            case UInt8(ascii: "^"): kind = .inverted
            case UInt8(ascii: "/"): kind = .close
            case UInt8(ascii: "!"): kind = .comment
            case UInt8(ascii: ">"): kind = .partial
            case UInt8(ascii: "<"): kind = .parent
            case UInt8(ascii: "$"): kind = .block
            case UInt8(ascii: "&"): kind = .unescaped
            case UInt8(ascii: "="): kind = .delimiters
            default: kind = .variable
            }
            switch kind {
            case .comment:
                tokens.append(.tag(RawTag(kind: .comment, name: "", start: start, end: end)))
            case .delimiters:
                (open, close) = try delimiters(inner..<stop, file: file, tagStart: start)
                tokens.append(.tag(RawTag(kind: .delimiters, name: "", start: start, end: end)))
            case .variable:
                let name = try checkedName(inner..<stop, file: file, tagStart: start)
                tokens.append(.tag(RawTag(kind: kind, name: name, start: start, end: end)))
            default:
                let name = try checkedName(inner + 1..<stop, file: file, tagStart: start)
                tokens.append(.tag(RawTag(kind: kind, name: name, start: start, end: end)))
            }
        }
        return tokens
    }

    /// The name inside a tag, trimmed; refuses an empty name or one with whitespace inside.
    private func checkedName(_ range: Range<Int>, file: String, tagStart: Int) throws(TemplateError) -> String {
        let trimmed = trim(range)
        guard !trimmed.isEmpty else {
            throw error(file, tagStart, "tag has no name: \"\(text(source[tagStart..<min(range.upperBound + 3, source.count)]))\"")
        }
        if source[trimmed].contains(where: isWhitespace) {
            throw error(file, tagStart, "tag name \"\(text(source[trimmed]))\" contains whitespace")
        }
        return text(source[trimmed])
    }

    /// The two delimiters of `{{=open close=}}`; `range` covers `=open close=`.
    private func delimiters(_ range: Range<Int>, file: String, tagStart: Int) throws(TemplateError) -> ([UInt8], [UInt8]) {
        let body = Array(source[range])
        let usage = "a set-delimiter tag is two delimiters between '=' signs, e.g. {{=<% %>=}}"
        guard body.count >= 2, body.last == UInt8(ascii: "=") else {
            throw error(file, tagStart, "set-delimiter tag does not end with '=': \(usage)")
        }
        let parts = body[1..<(body.count - 1)].split(whereSeparator: isWhitespace)
        guard parts.count == 2, !parts.contains(where: { $0.contains(UInt8(ascii: "=")) }) else {
            throw error(file, tagStart, "bad set-delimiter tag \"\(text(body))\": \(usage)")
        }
        return (Array(parts[0]), Array(parts[1]))
    }

    private func trim(_ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, isWhitespace(source[lower]) { lower += 1 }
        while upper > lower, isWhitespace(source[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    /// The first offset at or after `from` where `needle` starts.
    private func find(_ needle: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, needle.count <= source.count else { return nil }
        let last = source.count - needle.count
        var index = from
        while index <= last {
            if source[index] == first {
                var matched = 1
                while matched < needle.count, source[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }

    private func error(_ file: String, _ offset: Int, _ message: String) -> TemplateError {
        let (line, column) = lines.position(of: offset)
        return TemplateError(file: file, line: line, column: column, message: message)
    }
}

@inline(__always)
func isWhitespace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
}

func text<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    String(decoding: Array(bytes), as: UTF8.self)
}
