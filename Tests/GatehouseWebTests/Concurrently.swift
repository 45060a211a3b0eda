import Foundation

/// Runs `body` on `count` threads released together and returns their results in order.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
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
final class Results<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `slots` is only touched under `lock`.
    private let lock = NSLock()
    private var slots: [T?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ value: T) { lock.withLock { slots[i] = value } }

    var values: [T] { lock.withLock { slots.compactMap { $0 } } }
}
