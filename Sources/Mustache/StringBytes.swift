/// The UTF-8 bytes of a string in the value tree, reached without copying the string (so without reference
/// counting): up to 15 bytes are copied into the value itself, longer strings are read in place.
struct StringBytes {
    /// Short strings' bytes.
    private var inline: (UInt64, UInt64) = (0, 0)
    /// Long strings' bytes, in the string's own storage; nil for a short string.
    private let storage: UnsafePointer<UInt8>?
    let count: Int

    /// A short string's bytes, padded with zeros; nil for a long string.
    @inline(__always)
    var words: (UInt64, UInt64)? { storage == nil ? inline : nil }

    /// A long string's bytes, in its own storage; nil for a short string.
    @inline(__always)
    var stored: UnsafeBufferPointer<UInt8>? {
        guard let storage else { return nil }
        return UnsafeBufferPointer(start: storage, count: count)
    }

    /// The bytes of the string `value` points at; nil when it is no string or its bytes are not contiguous in
    /// memory (the caller then copies them).
    ///
    /// A long string's pointer outlives `withContiguousStorageIfAvailable` on purpose: the string is held by the
    /// value tree, which the caller keeps alive and nobody mutates during a render, so its storage stays put.
    @inline(__always)
    init?(_ value: UnsafePointer<MustacheValue>) {
        guard case .string(let string) = value.pointee.storage else { return nil }
        var local: (UInt64, UInt64) = (0, 0)
        let start = string.utf8.withContiguousStorageIfAvailable { bytes -> UnsafePointer<UInt8>? in
            guard let base = bytes.baseAddress else { return nil }
            guard bytes.count > 15 else {
                local = Self.words(base, count: bytes.count)
                return nil
            }
            return base
        }
        guard let start else { return nil }
        count = string.utf8.count
        storage = start
        inline = local
    }

    /// `count` (less than 16) bytes from `source` as two words padded with zeros (in memory order), read with
    /// (possibly overlapping) loads inside the bytes and shifted into place.
    @inline(__always)
    private static func words(_ source: UnsafePointer<UInt8>, count: Int) -> (UInt64, UInt64) {
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

    /// Runs `body` with the bytes.
    @inline(__always)
    mutating func withBytes(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if let storage {
            body(UnsafeBufferPointer(start: storage, count: count))
        } else {
            let count = count
            withUnsafeBytes(of: &inline) { bytes in
                body(UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: count))
            }
        }
    }
}
