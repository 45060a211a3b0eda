extension Renderer {
    /// Appends a value as text: strings (HTML-escaped unless `escaped` is false), numbers and booleans; nothing
    /// for null, lists and dictionaries.
    mutating func interpolate(_ value: UnsafePointer<MustacheValue>, escaped: Bool) {
        // Escaped strings, the usual case, first and without touching memory of this frame.
        if escaped, let text = StringBytes(value) {
            if let words = text.words {
                appendEscaped(words, count: text.count)
            } else if let bytes = text.stored {
                appendEscaped(bytes)
            }
            return
        }
        interpolateOther(value, escaped: escaped)
    }

    /// `interpolate` for all but escaped strings.
    @inline(never)
    private mutating func interpolateOther(_ value: UnsafePointer<MustacheValue>, escaped: Bool) {
        if let text = StringBytes(value) {
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

    /// Appends `bytes` with `& < > " '` replaced by their HTML entities. Sixteen bytes at a time are tested for
    /// the five characters at once (SWAR) and, when clean (the usual case), stored as two words; room for the worst
    /// case (every byte an entity of six) is reserved first, so writes need no capacity checks.
    private mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let count = bytes.count
        output.reserve(count &* 6 &+ 8)
        let start = output.end
        if count >= 16 {
            // Store 16 bytes at a time as they are (the last 16 overlapping) while testing them; when none needs
            // escaping (the usual case) that was the whole copy, else the bytes are written again below.
            let from = UnsafeRawPointer(source)
            let to = UnsafeMutableRawPointer(start)
            var found: UInt64 = 0
            var offset = 0
            while offset &+ 16 < count {
                let first = from.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                let second = from.loadUnaligned(fromByteOffset: offset &+ 8, as: UInt64.self)
                found |= Self.escapeMask(first) | Self.escapeMask(second)
                to.storeBytes(of: first, toByteOffset: offset, as: UInt64.self)
                to.storeBytes(of: second, toByteOffset: offset &+ 8, as: UInt64.self)
                offset &+= 16
            }
            let first = from.loadUnaligned(fromByteOffset: count &- 16, as: UInt64.self)
            let second = from.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            found |= Self.escapeMask(first) | Self.escapeMask(second)
            to.storeBytes(of: first, toByteOffset: count &- 16, as: UInt64.self)
            to.storeBytes(of: second, toByteOffset: count &- 8, as: UInt64.self)
            if found == 0 {
                output.advance(by: count)
                return
            }
        }
        var target = start
        var index = 0
        #if _endian(little)
        // Word by word: store the word as it is, then, at its first byte to escape (the lowest marked byte is
        // exact), keep the bytes before it, write its entity and go on right after it.
        while index &+ 8 <= count {
            let word = UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self)
            UnsafeMutableRawPointer(target).storeBytes(of: word, as: UInt64.self)
            let mask = Self.escapeMask(word)
            if mask == 0 {
                target += 8
                index &+= 8
                continue
            }
            let clean = mask.trailingZeroBitCount &>> 3
            target = Self.escape(source + (index &+ clean), count: 1, into: target + clean)
            index &+= clean &+ 1
        }
        #endif
        target = Self.escape(source + index, count: count &- index, into: target)
        output.advance(by: target - start)
    }

    /// Writes `count` bytes from `source` to `target`, each byte or its entity; returns the end of what it wrote.
    @inline(__always)
    private static func escape(
        _ source: UnsafePointer<UInt8>, count: Int, into target: UnsafeMutablePointer<UInt8>
    ) -> UnsafeMutablePointer<UInt8> {
        var target = target
        for index in 0..<count {
            #if _endian(little)
            // The entity's bytes as one word, stored whole (room for 8 bytes per byte written is reserved).
            let entity: UInt64
            let length: Int
            switch source[index] {
            case UInt8(ascii: "&"): (entity, length) = (0x3B_70_6D_61_26, 5)  // &amp;
            case UInt8(ascii: "<"): (entity, length) = (0x3B_74_6C_26, 4)  // &lt;
            case UInt8(ascii: ">"): (entity, length) = (0x3B_74_67_26, 4)  // &gt;
            case UInt8(ascii: "\""): (entity, length) = (0x3B_74_6F_75_71_26, 6)  // &quot;
            case UInt8(ascii: "'"): (entity, length) = (0x3B_39_33_23_26, 5)  // &#39;
            default:
                target.pointee = source[index]
                target += 1
                continue
            }
            UnsafeMutableRawPointer(target).storeBytes(of: entity, as: UInt64.self)
            target += length
            #else
            let entity: StaticString
            switch source[index] {
            case UInt8(ascii: "&"): entity = "&amp;"
            case UInt8(ascii: "<"): entity = "&lt;"
            case UInt8(ascii: ">"): entity = "&gt;"
            case UInt8(ascii: "\""): entity = "&quot;"
            case UInt8(ascii: "'"): entity = "&#39;"
            default:
                target.pointee = source[index]
                target += 1
                continue
            }
            target.update(from: entity.utf8Start, count: entity.utf8CodeUnitCount)
            target += entity.utf8CodeUnitCount
            #endif
        }
        return target
    }

    /// Appends a short string's `count` bytes, held in `words` and padded with zeros, escaped as `appendEscaped`
    /// does. When no byte needs escaping (the usual case) both words are stored whole.
    @inline(__always)
    private mutating func appendEscaped(_ words: (UInt64, UInt64), count: Int) {
        if Self.escapeMask(words.0) | Self.escapeMask(words.1) == 0 {
            output.reserve(16)
            output.appendReserved(words, count: count)
            return
        }
        appendEscapedSlowly(words, count: count)
    }

    /// `appendEscaped(_:count:)` when some byte needs escaping.
    @inline(never)
    private mutating func appendEscapedSlowly(_ words: (UInt64, UInt64), count: Int) {
        output.reserve(count &* 6 &+ 8)
        var words = words
        let start = output.end
        let end = withUnsafeBytes(of: &words) { bytes -> UnsafeMutablePointer<UInt8> in
            guard let base = bytes.baseAddress else { return start }
            return Self.escape(base.assumingMemoryBound(to: UInt8.self), count: count, into: start)
        }
        output.advance(by: end - start)
    }

    /// The high bit of every byte of `word` that is one of `" & ' < >` (0x22, 0x26, 0x27, 0x3C, 0x3E) or `#`
    /// (0x23, which shares the test of `"` and costs only a slower path), and perhaps of bytes after such a byte;
    /// zero exactly when there is none. The lowest marked byte is exact.
    @inline(__always)
    private static func escapeMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value }
        return (zeroBytes((word | (ones &* 0x05)) ^ (ones &* 0x27)) | zeroBytes((word | (ones &* 0x02)) ^ (ones &* 0x3E)))
            & highs
    }

    /// Appends an integer in decimal without going through a String: digits are written backwards into a
    /// scratch buffer, then copied.
    private mutating func append(_ number: Int) {
        var magnitude = number.magnitude
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { scratch in
            var place = scratch.count
            repeat {
                place &-= 1
                scratch[place] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if number < 0 {
                place &-= 1
                scratch[place] = UInt8(ascii: "-")
            }
            if let start = scratch.baseAddress {
                output.append(start.assumingMemoryBound(to: UInt8.self) + place, count: scratch.count &- place)
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
