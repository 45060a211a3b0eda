import Locks
import Dispatch
import Synchronization

/// A counting semaphore that bounds the calls in flight; a caller waits a bounded time for a slot.
final class CallGate: Sendable {
    private let slots: DispatchSemaphore
    private let inFlight = Atomic<Int>(0)

    /// A gate with `capacity` slots (at least 1).
    init(capacity: Int) {
        slots = DispatchSemaphore(value: max(1, capacity))
    }

    /// Takes a slot, waiting at most `timeout`; false when none freed up in time.
    func enter(waitingAtMost timeout: Duration) -> Bool {
        let milliseconds = timeout <= .zero ? 0 : timeout.milliseconds(roundingUp: true)
        guard slots.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return false }
        inFlight.add(1, ordering: .relaxed)
        return true
    }

    /// Gives back a slot taken by `enter`.
    func leave() {
        inFlight.subtract(1, ordering: .relaxed)
        slots.signal()
    }

    /// The slots taken now.
    var taken: Int { inFlight.load(ordering: .relaxed) }
}
