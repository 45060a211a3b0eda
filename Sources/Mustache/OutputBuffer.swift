/// The bytes a render writes: where they start, where the next byte goes and where the room ends, so an append is
/// one comparison and a copy. It writes into memory it was lent (a new array's uninitialized storage, by a closure
/// that this buffer must not outlive) until that is full, then into memory it allocates, doubling, and frees when it
/// goes away.
struct OutputBuffer: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    /// Where the next byte goes.
    private(set) var end: UnsafeMutablePointer<UInt8>
    /// The end of the room.
    private(set) var limit: UnsafeMutablePointer<UInt8>
    /// Whether `base` was allocated here (and is freed with this buffer): the output outgrew the memory it was lent.
    private(set) var spilled: Bool

    /// A buffer writing into `memory` until it is full; `memory` must outlive it.
    init(writingInto memory: UnsafeMutablePointer<UInt8>, capacity: Int) {
        base = memory
        end = memory
        limit = memory + capacity
        spilled = false
    }

    /// A buffer in memory of its own, `capacity` bytes to start.
    init(capacity: Int) {
        let capacity = max(capacity, 64)
        base = .allocate(capacity: capacity)
        end = base
        limit = base + capacity
        spilled = true
    }

    deinit {
        if spilled { base.deallocate() }
    }

    /// How many bytes were written.
    var count: Int { end - base }

    /// The bytes written so far, as a new array.
    func copyBytes() -> [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// Appends the bytes written so far to `buffer`.
    func appendBytes(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }

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
        if spilled { base.deallocate() }
        base = memory
        end = memory + count
        limit = memory + newCapacity
        spilled = true
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
