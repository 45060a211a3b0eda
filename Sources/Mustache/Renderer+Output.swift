extension Renderer {
    /// Writes a value as text at `out` (room up to `limit`): strings (HTML-escaped unless `escaped` is false),
    /// numbers and booleans; nothing for null, lists and dictionaries. Returns the new end and limit.
    mutating func interpolate(
        _ value: UnsafePointer<MustacheValue>, escaped: Bool, at out: UnsafeMutablePointer<UInt8>,
        limit: UnsafeMutablePointer<UInt8>
    ) -> (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) {
        // Escaped strings, the usual case, first: room for the worst case (every byte an entity of six), then the
        // string lends its bytes to `writeEscaped`, which only stores them (so the string need not be retained).
        if escaped, case .string(let string) = value.pointee.storage {
            let room = string.utf8.count &* 6 &+ 16
            var (out, limit) = (out, limit)
            if room > limit - out { (out, limit) = makeRoom(room, after: out) }
            if let end = Self.writeEscaped(value, to: out) { return (end, limit) }
            output.written(upTo: out)
        } else {
            output.written(upTo: out)
        }
        interpolateOther(value, escaped: escaped)
        return (output.end, output.limit)
    }

    /// Writes the string `value` points at, escaped, at `out` (with room for the worst case); returns the end of what
    /// it wrote, or nil when the string is not in contiguous memory. The bytes are used only inside the closure that
    /// lends them: a short string (under 16 bytes) is stored as two words when it needs no escaping.
    @inline(__always)
    private static func writeEscaped(
        _ value: UnsafePointer<MustacheValue>, to out: UnsafeMutablePointer<UInt8>
    ) -> UnsafeMutablePointer<UInt8>? {
        guard case .string(let string) = value.pointee.storage else { return nil }
        return string.utf8.withContiguousStorageIfAvailable { bytes in
            guard let source = bytes.baseAddress else { return out }
            if bytes.count < 16 {
                let words = StringBytes.words(source, count: bytes.count)
                if Self.escapeMask(words.0) | Self.escapeMask(words.1) == 0 {
                    let target = UnsafeMutableRawPointer(out)
                    target.storeBytes(of: words.0, as: UInt64.self)
                    target.storeBytes(of: words.1, toByteOffset: 8, as: UInt64.self)
                    return out + bytes.count
                }
            }
            return Self.writeEscaped(source, count: bytes.count, to: out)
        }
    }

    /// `interpolate` for all but escaped strings in contiguous memory.
    @inline(never)
    private mutating func interpolateOther(_ value: UnsafePointer<MustacheValue>, escaped: Bool) {
        switch value.pointee.storage {
        case .string(let string):
            let written: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
                if escaped { appendEscaped(bytes) } else { output.append(bytes) }
            }
            guard written == nil else { return }
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
}
