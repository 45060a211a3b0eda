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

    /// Room for `capacity` elements, of which `initialize` initializes the first ones, given where they start, and
    /// returns how many (at most `capacity`).
    init(capacity: Int, initializingWith initialize: (UnsafeMutablePointer<Element>) -> Int) {
        base = .allocate(capacity: max(capacity, 1))
        let count = initialize(base)
        precondition(count >= 0 && count <= capacity, "initialized more elements than there is room for")
        self.count = count
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
