/// Memory for `count` elements, allocated when made and freed (its elements deinitialized first) when this owner
/// goes away. Not copyable, so there is exactly one owner, no call to forget and none to make twice.
///
/// `base` lives as long as the owner: a pointer derived from it is valid while whoever holds the owner (a
/// `Renderer`, a `Program`, the value tree) is alive and has not replaced it.
struct OwnedBuffer<Element>: ~Copyable {
    let base: UnsafeMutablePointer<Element>
    /// How many elements are initialized (all of them).
    let count: Int

    /// `elements`, then `paddingCount` copies of `padding`, then `padding` again if that made none at all (so that
    /// `base` always points at one element at least).
    init(_ elements: [Element], padding: Element, paddingCount: Int = 0) {
        let count = max(elements.count + paddingCount, 1)
        base = .allocate(capacity: count)
        let filled = UnsafeMutableBufferPointer(start: base, count: count).initialize(fromContentsOf: elements)
        (base + filled).initialize(repeating: padding, count: count - filled)
        self.count = count
    }

    /// `count` copies of `element` (one at least).
    init(repeating element: Element, count: Int) {
        self.count = max(count, 1)
        base = .allocate(capacity: self.count)
        base.initialize(repeating: element, count: self.count)
    }

    /// The elements of `collection` (none is fine: nothing is read then).
    init(copying collection: some Collection<Element>) {
        let count = collection.count
        base = .allocate(capacity: max(count, 1))
        let filled = UnsafeMutableBufferPointer(start: base, count: count).initialize(fromContentsOf: collection)
        self.count = filled
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

extension OwnedBuffer where Element: BitwiseCopyable {
    /// Room for `capacity` elements (one at least), left uninitialized: the owner's user writes an element before
    /// reading it. Such elements need no deinitializing, so `count` is 0.
    init(uninitializedCapacity capacity: Int) {
        base = .allocate(capacity: max(capacity, 1))
        count = 0
    }
}

/// Shared, immutable elements in memory of their own: the lists and dictionaries of a value tree. The renderer
/// reaches elements through `base`, valid as long as this object is, that is as long as the tree holding it.
///
/// `@unchecked Sendable`: the elements are written once, in `init`, and only read after.
final class SharedElements<Element: Sendable>: @unchecked Sendable {
    let storage: OwnedBuffer<Element>

    init(_ elements: some Collection<Element>) {
        storage = OwnedBuffer(copying: elements)
    }

    /// Where the elements start (valid while this object lives).
    var base: UnsafePointer<Element> { @inline(__always) get { UnsafePointer(storage.base) } }

    /// How many elements there are.
    var count: Int { @inline(__always) get { storage.count } }
}

extension SharedElements: RandomAccessCollection {
    var startIndex: Int { 0 }
    var endIndex: Int { storage.count }

    subscript(position: Int) -> Element {
        precondition(position >= 0 && position < storage.count, "index out of range")
        return storage.base[position]
    }
}
