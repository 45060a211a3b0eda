/// The bytes a render writes: a pointer, a count and a capacity, so an append is a bounds check and a copy.
/// It writes into memory it was given (a new array's uninitialized storage) until that is full, then into memory it
/// allocates, doubling; `release()` frees that.
struct OutputBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var capacity: Int
    /// Whether `base` was allocated here (and must be freed by `release()`).
    private(set) var owned: Bool

    /// A buffer writing into `memory` (not owned) until it is full.
    init(writingInto memory: UnsafeMutablePointer<UInt8>, capacity: Int) {
        base = memory
        self.capacity = capacity
        owned = false
    }

    /// A buffer in memory of its own, `capacity` bytes to start.
    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
        owned = true
    }

    /// Frees the memory allocated here, if any.
    mutating func release() {
        if owned { base.deallocate() }
        owned = false
        capacity = 0
        count = 0
    }

    /// The bytes written so far.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Where the next byte goes.
    var end: UnsafeMutablePointer<UInt8> { base + count }

    /// Counts `length` bytes written at `end` (room for them was reserved).
    @inline(__always)
    mutating func advance(by length: Int) { count &+= length }

    /// Room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if extra > capacity &- count { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let needed = count + extra
        var newCapacity = max(capacity * 2, 4096)
        while newCapacity < needed { newCapacity *= 2 }
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        memory.update(from: base, count: count)
        if owned { base.deallocate() }
        base = memory
        capacity = newCapacity
        owned = true
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        reserve(length)
        appendReserved(bytes, count: length)
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    /// Appends a byte with no capacity check: the caller reserved room.
    @inline(__always)
    mutating func appendReserved(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    /// Appends bytes with no capacity check: the caller reserved room. Up to 64 bytes are copied with (possibly
    /// overlapping) word loads and stores inside both ranges, longer ones by `memmove`.
    @inline(__always)
    mutating func appendReserved(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        let target = UnsafeMutableRawPointer(base + count)
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
        count &+= length
    }

    /// How many bytes past their end `appendPadded` may read from its source and write to this buffer.
    static let padding = 64

    /// Appends bytes with no capacity check; the caller reserved `length + padding` bytes and the source is
    /// readable `padding` bytes past `length`. Up to 64 bytes are copied as 64, so short copies take no branch on
    /// their length (what lies past `length` is written over by the next append).
    @inline(__always)
    mutating func appendPadded(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        let target = UnsafeMutableRawPointer(base + count)
        let source = UnsafeRawPointer(bytes)
        if length <= 64 {
            typealias Half = (UInt64, UInt64, UInt64, UInt64)
            let first = source.loadUnaligned(as: Half.self)
            let second = source.loadUnaligned(fromByteOffset: 32, as: Half.self)
            target.storeBytes(of: first, as: Half.self)
            target.storeBytes(of: second, toByteOffset: 32, as: Half.self)
        } else {
            target.copyMemory(from: source, byteCount: length)
        }
        count &+= length
    }

    /// Appends the first `length` (at most 16) bytes of `words`, storing both words whole; the caller reserved room
    /// for 16 bytes.
    @inline(__always)
    mutating func appendReserved(_ words: (UInt64, UInt64), count length: Int) {
        let target = UnsafeMutableRawPointer(base + count)
        target.storeBytes(of: words.0, as: UInt64.self)
        target.storeBytes(of: words.1, toByteOffset: 8, as: UInt64.self)
        count &+= length
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        append(start, count: bytes.count)
    }
}
