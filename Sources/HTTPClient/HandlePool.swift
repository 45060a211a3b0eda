import Synchronization

/// Idle easy handles kept for the next call, so that their open connections are reused.
final class HandlePool: Sendable {
    private let idle = Mutex<[EasyHandle]>([])
    private let capacity: Int

    /// A pool that keeps at most `capacity` idle handles.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// An idle handle (the most recently used, whose connection is likeliest alive), or a new one.
    ///
    /// - Throws: ``HTTPClientError/transferFailed(_:)`` when libcurl cannot allocate a handle.
    func take() throws(HTTPClientError) -> EasyHandle {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        guard let handle = EasyHandle() else { throw .transferFailed("cannot allocate a libcurl handle") }
        return handle
    }

    /// Keeps `handle` for a later call (its options already reset), or frees it when the pool is full.
    func give(_ handle: EasyHandle) {
        idle.withLock { handles in
            if handles.count < capacity { handles.append(handle) }
        }
    }
}
