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
            guard bytes.count > 15 else {
                withUnsafeMutableBytes(of: &local) { inline in
                    for offset in bytes.indices { inline[offset] = bytes[offset] }
                }
                return nil
            }
            return bytes.baseAddress
        }
        guard let start else { return nil }
        count = string.utf8.count
        storage = start
        inline = local
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
