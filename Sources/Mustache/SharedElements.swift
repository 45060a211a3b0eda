/// Shared, immutable elements in memory of their own: the lists and dictionaries of a value tree. The renderer
/// reaches elements through `base`, valid as long as this object is, that is as long as the tree holding it.
///
/// `@unchecked Sendable`: the elements are written once, in `init`, and only read after.
final class SharedElements<Element: Sendable>: @unchecked Sendable {
    let storage: OwnedBuffer<Element>

    init(_ elements: some Collection<Element>) {
        storage = OwnedBuffer(copying: elements)
    }

    /// Elements written in place, as `OwnedBuffer(capacity:initializingWith:)` does.
    init(capacity: Int, initializingWith initialize: (UnsafeMutablePointer<Element>) -> Int) {
        storage = OwnedBuffer(capacity: capacity, initializingWith: initialize)
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
