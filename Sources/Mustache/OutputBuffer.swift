/// The bytes a render writes: where they start, where the next byte goes and where the room ends, so an append is
/// one comparison and a copy. It writes into memory it was given (a new array's uninitialized storage) until that is
/// full, then into memory it allocates, doubling; `release()` frees that.
struct OutputBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    /// Where the next byte goes.
    private(set) var end: UnsafeMutablePointer<UInt8>
    /// The end of the room.
    private(set) var limit: UnsafeMutablePointer<UInt8>
    /// Whether `base` was allocated here (and must be freed by `release()`).
    private(set) var owned: Bool

    /// A buffer writing into `memory` (not owned) until it is full.
    init(writingInto memory: UnsafeMutablePointer<UInt8>, capacity: Int) {
        base = memory
        end = memory
        limit = memory + capacity
        owned = false
    }

    /// A buffer in memory of its own, `capacity` bytes to start.
    init(capacity: Int) {
        let capacity = max(capacity, 64)
        base = .allocate(capacity: capacity)
        end = base
        limit = base + capacity
        owned = true
    }

    /// Frees the memory allocated here, if any.
    mutating func release() {
        if owned { base.deallocate() }
        owned = false
        end = base
        limit = base
    }

    /// How many bytes were written.
    var count: Int { end - base }

    /// The bytes written so far.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if extra > limit - end { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let count = count
        let needed = count + extra
        var newCapacity = max((limit - base) * 2, 4096)
        while newCapacity < needed { newCapacity *= 2 }
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        memory.update(from: base, count: count)
        if owned { base.deallocate() }
        base = memory
        end = memory + count
        limit = memory + newCapacity
        owned = true
    }

    /// Appends `length` bytes (with no padding to read past: values, not template text). Up to 64 bytes are copied
    /// with (possibly overlapping) word loads and stores inside both ranges, longer ones by `memmove`.
    mutating func append(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        reserve(length)
        let target = UnsafeMutableRawPointer(end)
        let source = UnsafeRawPointer(bytes)
        if length > 32 && length <= 64 {
            let last = length &- 32
            let head = source.loadUnaligned(as: (UInt64, UInt64, UInt64, UInt64).self)
            let tail = source.loadUnaligned(fromByteOffset: last, as: (UInt64, UInt64, UInt64, UInt64).self)
            target.storeBytes(of: head, as: (UInt64, UInt64, UInt64, UInt64).self)
            target.storeBytes(of: tail, toByteOffset: last, as: (UInt64, UInt64, UInt64, UInt64).self)
        } else if length >= 8 && length <= 32 {
            let last = length &- 8
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: last, as: UInt64.self)
            if length > 16 {
                let second = source.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                let third = source.loadUnaligned(fromByteOffset: min(16, last), as: UInt64.self)
                target.storeBytes(of: second, toByteOffset: 8, as: UInt64.self)
                target.storeBytes(of: third, toByteOffset: min(16, last), as: UInt64.self)
            }
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: last, as: UInt64.self)
        } else if length < 8 {
            for offset in 0..<length { target.storeBytes(of: bytes[offset], toByteOffset: offset, as: UInt8.self) }
        } else {
            target.copyMemory(from: source, byteCount: length)
        }
        end += length
    }

    /// How many bytes past their end `copyPadded` may read from its source and write to its target.
    static let padding = 64

    /// Copies `length` bytes from `source` to `target` and returns `target + length`; `target` has room for
    /// `length + padding` bytes and `source` is readable `padding` bytes past `length`. Up to 64 bytes are copied as
    /// 16, 32 or 64 (what lies past `length` is written over later): one to four 16-byte stores, where a copy of
    /// exactly `length` bytes would take more, or a call. Stores, not instructions, are what a render spends most.
    @inline(__always)
    static func copyPadded(
        _ source: UnsafePointer<UInt8>, count length: Int, to target: UnsafeMutablePointer<UInt8>
    ) -> UnsafeMutablePointer<UInt8> {
        let to = UnsafeMutableRawPointer(target)
        let from = UnsafeRawPointer(source)
        typealias Quarter = (UInt64, UInt64)
        typealias Half = (UInt64, UInt64, UInt64, UInt64)
        if length <= 16 {
            to.storeBytes(of: from.loadUnaligned(as: Quarter.self), as: Quarter.self)
        } else if length <= 32 {
            to.storeBytes(of: from.loadUnaligned(as: Half.self), as: Half.self)
        } else if length <= 64 {
            let first = from.loadUnaligned(as: Half.self)
            let second = from.loadUnaligned(fromByteOffset: 32, as: Half.self)
            to.storeBytes(of: first, as: Half.self)
            to.storeBytes(of: second, toByteOffset: 32, as: Half.self)
        } else {
            to.copyMemory(from: from, byteCount: length)
        }
        return target + length
    }

    /// Records that bytes up to `newEnd` were written (by a caller that kept the end in a local of its own).
    @inline(__always)
    mutating func written(upTo newEnd: UnsafeMutablePointer<UInt8>) { end = newEnd }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        append(start, count: bytes.count)
    }
}
