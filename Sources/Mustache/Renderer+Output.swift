extension Renderer {
    /// Writes a value as text at `out` (room up to `limit`): strings (HTML-escaped unless `escaped` is false),
    /// numbers and booleans; nothing for null, lists and dictionaries. Returns the new end and limit.
    mutating func interpolate(
        _ value: UnsafePointer<MustacheValue>, escaped: Bool, at out: UnsafeMutablePointer<UInt8>,
        limit: UnsafeMutablePointer<UInt8>
    ) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) {
        // Escaped strings, the usual case, first and without touching memory of this frame.
        if escaped, let text = StringBytes(value) {
            if let words = text.words {
                if Self.escapeMask(words.0) | Self.escapeMask(words.1) == 0 {
                    var (out, limit) = (out, limit)
                    if 16 > limit - out { (out, limit) = makeRoom(16, after: out) }
                    let target = UnsafeMutableRawPointer(out)
                    target.storeBytes(of: words.0, as: UInt64.self)
                    target.storeBytes(of: words.1, toByteOffset: 8, as: UInt64.self)
                    return (out + text.count, limit)
                }
            } else if let bytes = text.stored {
                return appendEscaped(bytes, at: out, limit: limit)
            }
        }
        output.written(upTo: out)
        interpolateOther(value, escaped: escaped)
        return (output.end, output.limit)
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
        output.written(upTo: appendEscaped(bytes, at: output.end, limit: output.limit).0)
    }

    /// `appendEscaped(_:)` at `out` with room up to `limit`; returns the new end and limit.
    private mutating func appendEscaped(
        _ bytes: UnsafeBufferPointer<UInt8>, at out: UnsafeMutablePointer<UInt8>, limit: UnsafeMutablePointer<UInt8>
    ) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) {
        guard let source = bytes.baseAddress else { return (out, limit) }
        let count = bytes.count
        var (start, limit) = (out, limit)
        if count &* 6 &+ 8 > limit - start { (start, limit) = makeRoom(count &* 6 &+ 8, after: start) }
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
            if found == 0 { return (start + count, limit) }
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
        return (target, limit)
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

    /// Appends an integer in decimal without going through a String: digits are written backwards into the first
    /// 24 bytes of a scratch buffer, then copied as three words.
    private mutating func append(_ number: Int) {
        var magnitude = number.magnitude
        var scratch: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { scratch in
            guard let base = scratch.baseAddress else { return }
            var place = 24
            repeat {
                place &-= 1
                base.storeBytes(of: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10), toByteOffset: place,
                                as: UInt8.self)
                magnitude /= 10
            } while magnitude != 0
            if number < 0 {
                place &-= 1
                base.storeBytes(of: UInt8(ascii: "-"), toByteOffset: place, as: UInt8.self)
            }
            // The digits and what follows them in the scratch buffer, 24 bytes: room for those was reserved.
            output.reserve(24)
            let target = UnsafeMutableRawPointer(output.end)
            let source = UnsafeRawPointer(base + place)
            target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: 16, as: UInt64.self), toByteOffset: 16, as: UInt64.self)
            output.written(upTo: output.end + (24 &- place))
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
