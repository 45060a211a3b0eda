/// Reading a short string's UTF-8 bytes as two machine words, so the renderer can test and store them without a loop.
enum StringBytes {
    /// `count` (less than 16) bytes from `source` as two words padded with zeros (in memory order), read with
    /// (possibly overlapping) loads inside the bytes and shifted into place.
    @inline(__always)
    static func words(_ source: UnsafePointer<UInt8>, count: Int) -> (UInt64, UInt64) {
        #if _endian(big)
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(start: source, count: count)) }
        return words
        #else
        let raw = UnsafeRawPointer(source)
        if count >= 8 {
            let tail = raw.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            return (raw.loadUnaligned(as: UInt64.self), tail >> UInt64((16 &- count) &* 8))
        }
        if count >= 4 {
            let head = UInt64(raw.loadUnaligned(as: UInt32.self))
            let tail = UInt64(raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
            return (head | tail << UInt64((count &- 4) &* 8), 0)
        }
        var word: UInt64 = 0
        for offset in 0..<count { word |= UInt64(source[offset]) << UInt64(offset &* 8) }
        return (word, 0)
        #endif
    }
}
