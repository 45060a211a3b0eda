import Foundation

/// Runs `body` on `count` threads released together and returns their results in order (for tests of what one
/// winner among concurrent callers means: a challenge consumed once, a counter advanced once).
public func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = Results<T>(count: count)
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for i in 0..<count {
        done.enter()
        Thread {
            start.wait()
            results.set(i, body(i))
            done.leave()
        }.start()
    }
    for _ in 0..<count { start.signal() }
    done.wait()
    return results.values
}

/// Results filled in by concurrent threads.
public final class Results<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `slots` is only touched under `lock`.
    private let lock = NSLock()
    private var slots: [T?]

    public init(count: Int) { slots = Array(repeating: nil, count: count) }

    public func set(_ i: Int, _ value: T) { lock.withLock { slots[i] = value } }

    public var values: [T] { lock.withLock { slots.compactMap { $0 } } }
}
