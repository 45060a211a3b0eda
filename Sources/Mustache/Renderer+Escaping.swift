extension Renderer {
    /// Appends `bytes` with `& < > " '` replaced by their HTML entities. Sixteen bytes at a time are tested for
    /// the five characters at once (SWAR) and, when clean (the usual case), stored as two words; room for the worst
    /// case (every byte an entity of six) is reserved first, so writes need no capacity checks.
    mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        output.written(upTo: appendEscaped(bytes, at: output.end, limit: output.limit).0)
    }

    /// `appendEscaped(_:)` at `out` with room up to `limit`; returns the new end and limit.
    mutating func appendEscaped(
        _ bytes: UnsafeBufferPointer<UInt8>, at out: UnsafeMutablePointer<UInt8>, limit: UnsafeMutablePointer<UInt8>
    ) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) {
        guard let source = bytes.baseAddress else { return (out, limit) }
        let count = bytes.count
        var (start, limit) = (out, limit)
        if count &* 6 &+ 8 > limit - start { (start, limit) = makeRoom(count &* 6 &+ 8, after: start) }
        return (Self.writeEscaped(source, count: count, to: start), limit)
    }

    /// Writes `count` bytes from `source` escaped at `start`, which has room for `count * 6 + 8` bytes; returns the
    /// end of what it wrote. Only stores: it neither calls out nor touches the renderer.
    static func writeEscaped(
        _ source: UnsafePointer<UInt8>, count: Int, to start: UnsafeMutablePointer<UInt8>
    ) -> UnsafeMutablePointer<UInt8> {
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
            if found == 0 { return start + count }
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
        return Self.escape(source + index, count: count &- index, into: target)
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
    static func escapeMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value }
        return (zeroBytes((word | (ones &* 0x05)) ^ (ones &* 0x27)) | zeroBytes((word | (ones &* 0x02)) ^ (ones &* 0x3E)))
            & highs
    }
}
