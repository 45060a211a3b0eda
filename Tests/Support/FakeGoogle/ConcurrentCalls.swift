import Foundation

/// Calls started at once against the fake, each on a thread of its own, and what they returned: for tests of what a
/// client does while the fake holds or slows calls down (bounds on calls in flight, one token fetch for many decodes).
public final class ConcurrentCalls<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `values` is only touched under `lock`; a DispatchGroup is thread-safe.
    private let lock = NSLock()
    private var values: [Value] = []
    private let finished = DispatchGroup()

    /// Starts `count` calls, `call(index)` for each index in `0..<count`, and returns without waiting for them.
    public init(_ count: Int, _ call: @escaping @Sendable (Int) -> Value) {
        for index in 0..<count {
            finished.enter()
            Thread.detachNewThread { [self] in
                let value = call(index)
                lock.withLock { values.append(value) }
                finished.leave()
            }
        }
    }

    /// Waits up to `seconds` for every call to return; false when some have not.
    public func wait(seconds: Double = 20) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
    }

    /// What the calls have returned so far, in the order they returned.
    public var results: [Value] { lock.withLock { values } }

    /// The errors of the calls that have failed so far.
    public func failures<Success, Failure>() -> [Failure] where Value == Result<Success, Failure> {
        results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
    }
}
