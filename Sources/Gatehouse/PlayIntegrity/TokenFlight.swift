import Locks
import Dispatch
import Synchronization

/// One access-token request in flight, whose outcome every caller that asked meanwhile shares: a latch that opens
/// once, when the request ends.
final class TokenFlight: Sendable {
    private let outcome = Mutex<Result<ServiceAccountToken, GoogleDecodeError>?>(nil)
    private let opened = DispatchSemaphore(value: 0)

    /// Records the outcome and wakes the waiters.
    func finish(_ result: Result<ServiceAccountToken, GoogleDecodeError>) {
        outcome.withLock { $0 = result }
        opened.signal()
    }

    /// The outcome, waiting at most `timeout` for it.
    ///
    /// - Throws: the request's error, or ``GoogleDecodeError/googleUnreachable(_:)`` when it did not end in time.
    func wait(atMost timeout: Duration) throws(GoogleDecodeError) -> ServiceAccountToken {
        guard opened.wait(timeout: .now() + .milliseconds(min(timeout.milliseconds(), 86_400_000))) == .success else {
            throw .googleUnreachable("the access token request did not end in time")
        }
        opened.signal()  // wake the next waiter: the latch stays open
        guard let result = outcome.withLock({ $0 }) else {
            throw .googleUnreachable("the access token request ended without an outcome")
        }
        return try result.get()
    }
}
