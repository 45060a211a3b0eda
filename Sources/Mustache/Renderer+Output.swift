extension Renderer {
    /// Appends a value as text: strings (HTML-escaped unless `escaped` is false), numbers and booleans; nothing
    /// for null, lists and dictionaries.
    mutating func interpolate(_ value: UnsafePointer<MustacheValue>, escaped: Bool) {
        if let text = StringBytes(value) {
            if let words = text.words, escaped {
                appendEscaped(words, count: text.count)
                return
            }
            var text = text
            text.withBytes { bytes in
                if escaped { appendEscaped(bytes) } else { output.append(bytes) }
            }
            return
        }
        switch value.pointee.storage {
        case .string(let string):
            let bytes = Array(string.utf8)
            bytes.withUnsafeBufferPointer { bytes in
                if escaped { appendEscaped(bytes) } else { output.append(bytes) }
            }
        case .int(let number):
            append(number)
        case .double(let number):
            if number.isFinite, number.rounded() == number, number.magnitude < 1e15 {
                append(Int(number))
            } else {
                let text = Array(String(number).utf8)
                text.withUnsafeBufferPointer { output.append($0) }
            }
        case .bool(let flag):
            let text: StaticString = flag ? "true" : "false"
            output.append(text.utf8Start, count: text.utf8CodeUnitCount)
        case .null, .array, .dictionary:
            break
        }
    }

    /// Appends `bytes` with `& < > " '` replaced by their HTML entities. Eight bytes at a time are tested for the
    /// five characters at once (SWAR), and runs without any are copied whole; room for the worst case (every byte
    /// an entity of six) is reserved first, so writes need no capacity checks.
    private mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        output.reserve(count &* 6)
        var runStart = 0
        var index = 0
        while index &+ 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            guard Self.mayNeedEscaping(word) else {
                index &+= 8
                continue
            }
            if index > runStart { output.appendReserved(base + runStart, count: index &- runStart) }
            for offset in 0..<8 { appendEscaped(base[index &+ offset]) }
            index &+= 8
            runStart = index
        }
        if index < count, count >= 8,
           !Self.mayNeedEscaping(UnsafeRawPointer(base + (count &- 8)).loadUnaligned(as: UInt64.self)) {
            // The last word (overlapping words already checked) is clean too.
            index = count
        }
        if index > runStart { output.appendReserved(base + runStart, count: index &- runStart) }
        while index < count {
            appendEscaped(base[index])
            index &+= 1
        }
    }

    /// Appends a short string's `count` bytes, held in `words` and padded with zeros, escaped as `appendEscaped`
    /// does. When no byte needs escaping (the usual case) both words are stored whole.
    private mutating func appendEscaped(_ words: (UInt64, UInt64), count: Int) {
        output.reserve(max(count &* 6, 16))
        if !Self.mayNeedEscaping(words.0), !Self.mayNeedEscaping(words.1) {
            output.appendReserved(words, count: count)
            return
        }
        var words = words
        withUnsafeBytes(of: &words) { bytes in
            for index in 0..<count { appendEscaped(bytes[index]) }
        }
    }

    /// Appends one byte, or its entity. Room must be reserved.
    @inline(__always)
    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "&"): appendEntity("&amp;")
        case UInt8(ascii: "<"): appendEntity("&lt;")
        case UInt8(ascii: ">"): appendEntity("&gt;")
        case UInt8(ascii: "\""): appendEntity("&quot;")
        case UInt8(ascii: "'"): appendEntity("&#39;")
        default: output.appendReserved(byte)
        }
    }

    @inline(__always)
    private mutating func appendEntity(_ entity: StaticString) {
        output.appendReserved(entity.utf8Start, count: entity.utf8CodeUnitCount)
    }

    /// Whether any byte of `word` may be one of `" & ' < >` (0x22, 0x26, 0x27, 0x3C, 0x3E); never false when one is.
    @inline(__always)
    private static func mayNeedEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        return hasZeroByte(word ^ (ones &* 0x22))
            || hasZeroByte((word | ones) ^ (ones &* 0x27))
            || hasZeroByte((word | (ones &* 0x02)) ^ (ones &* 0x3E))
    }

    /// Appends an integer in decimal without going through a String.
    private mutating func append(_ number: Int) {
        var magnitude = number.magnitude
        var digits = 1
        var scale: UInt = 10
        while digits < 20, magnitude >= scale {
            digits += 1
            if scale > UInt.max / 10 { break }
            scale *= 10
        }
        output.reserve(digits + 1)
        if number < 0 { output.appendReserved(UInt8(ascii: "-")) }
        var place = digits
        var written: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &written) { scratch in
            while place > 0 {
                place -= 1
                scratch[place] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            if let start = scratch.baseAddress {
                output.appendReserved(start.assumingMemoryBound(to: UInt8.self), count: digits)
            }
        }
    }

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

    /// The error for a render that nests or works past its limits.
    func budgetError(_ scope: Scope) -> TemplateError {
        TemplateError(
            file: templates[scope.calls.pointee.element].file, line: 0, column: 0,
            message: "rendering stopped after \(steps) steps, \(output.count) bytes, at nesting depth \(scope.depth) "
                + "(limits: \(limits.maxRenderSteps) steps, \(limits.maxOutputBytes) bytes, depth \(limits.maxRenderDepth)); "
                + "look for a section or partial that multiplies or repeats without end")
    }
}
