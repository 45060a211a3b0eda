/// At most `capacity` resources (database connections), opened on demand and reused; a caller waits while all are
/// in use. A resource handed back as broken is dropped, and the next caller opens a new one.
public final class Pool<Resource: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: `idle` and `opened` are only touched while holding `lock`, and each resource is used by
    // exactly one thread between check-out and check-in (it is in `idle` only when nobody uses it).
    private let lock = ConditionLock()
    private var idle: [Resource] = []
    private var opened = 0
    private let capacity: Int
    private let open: @Sendable () throws -> Resource
    private let isBroken: @Sendable (Resource) -> Bool
    private let checkoutTimeout: (nanoseconds: UInt64, error: @Sendable () -> any Error)?

    /// A pool of at most `capacity` resources made by `open`; `isBroken` says which to drop when handed back. With
    /// `checkoutTimeout`, a caller that waits that many nanoseconds for a resource gets its `error()` thrown instead.
    public init(capacity: Int, open: @escaping @Sendable () throws -> Resource, isBroken: @escaping @Sendable (Resource) -> Bool = { _ in false },
                checkoutTimeout: (nanoseconds: UInt64, error: @Sendable () -> any Error)? = nil) {
        self.capacity = max(1, capacity)
        self.open = open
        self.isBroken = isBroken
        self.checkoutTimeout = checkoutTimeout
    }

    /// Runs `body` with a resource that no other thread uses meanwhile.
    /// - Throws: what `open` throws when a new resource cannot be made, or what `body` throws.
    public func withResource<T>(_ body: (Resource) throws -> T) throws -> T {
        let resource = try checkOut()
        defer { checkIn(resource) }
        return try body(resource)
    }

    /// Drops every idle resource (after the server behind them went away, say); those in use are dropped when
    /// handed back broken.
    public func drain() {
        lock.withLock {
            opened -= idle.count
            idle.removeAll()
            lock.broadcast()
        }
    }

    private func checkOut() throws -> Resource {
        let deadline = checkoutTimeout.map { monotonicNanoseconds() + $0.nanoseconds }
        let reused: Resource?? = lock.withLock {
            while idle.isEmpty && opened >= capacity {
                guard let deadline else {
                    lock.wait()
                    continue
                }
                if !lock.wait(untilNanoseconds: deadline), idle.isEmpty && opened >= capacity { return .none }
            }
            if let resource = idle.popLast() {
                return resource
            }
            opened += 1
            return .some(nil)
        }
        guard let reused else { throw checkoutTimeout?.error() ?? CancellationError() }
        if let reused { return reused }
        do {
            return try open()
        } catch {
            lock.withLock {
                opened -= 1
                lock.signal()
            }
            throw error
        }
    }

    private func checkIn(_ resource: Resource) {
        let broken = isBroken(resource)
        lock.withLock {
            if broken { opened -= 1 } else { idle.append(resource) }
            lock.signal()
        }
    }
}
