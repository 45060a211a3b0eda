import CCurl
import Glibc

/// A small HTTPS client over libcurl for calls from request handlers to upstream APIs (Google's Play Integrity
/// decode): certificate and host-name verification always on, connect and total timeouts, connections kept and
/// reused, a bounded number of calls in flight, and a cap on response size.
///
/// Calls block the calling thread. When ``HTTPClientConfiguration/maxConcurrentCalls`` calls are in flight, the
/// next waits at most ``HTTPClientConfiguration/queueTimeout`` and then fails with ``HTTPClientError/busy``, so a
/// slow upstream ties up at most that many of the server's workers. One instance is meant to be shared.
public final class HTTPClient: Sendable {
    /// The settings the client was made with.
    public let configuration: HTTPClientConfiguration
    private let gate: CallGate
    private let pool: HandlePool

    /// A client with `configuration`, checked now so that a mistake shows at start-up.
    ///
    /// - Throws: ``HTTPClientError/invalidConfiguration(_:)`` when the CA file cannot be read, a limit or timeout
    ///   is below its minimum, or libcurl fails to initialize.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(HTTPClientError) {
        try Curl.initialize()
        guard configuration.maxConcurrentCalls >= 1 else {
            throw .invalidConfiguration("maxConcurrentCalls must be at least 1")
        }
        guard configuration.maxResponseBytes >= 1 else {
            throw .invalidConfiguration("maxResponseBytes must be at least 1")
        }
        guard configuration.connectTimeout > .zero, configuration.totalTimeout > .zero else {
            throw .invalidConfiguration("timeouts must be above zero")
        }
        if let caFile = configuration.caFile, access(caFile, R_OK) != 0 {
            throw .invalidConfiguration("the CA file \(caFile) cannot be read")
        }
        self.configuration = configuration
        gate = CallGate(capacity: configuration.maxConcurrentCalls)
        pool = HandlePool(capacity: configuration.maxConcurrentCalls)
    }

    /// How many calls are in flight now (for metrics and tests).
    public var callsInFlight: Int { gate.taken }

    /// Sends `request` and returns the response, whatever its status.
    ///
    /// - Throws: ``HTTPClientError``: ``HTTPClientError/invalidRequest(_:)`` before anything is sent;
    ///   ``HTTPClientError/busy`` when no slot freed up in time; ``HTTPClientError/unreachable(_:)``,
    ///   ``HTTPClientError/timedOut``, ``HTTPClientError/certificateRejected(_:)``,
    ///   ``HTTPClientError/responseTooLarge(limit:)`` or ``HTTPClientError/transferFailed(_:)`` for the transfer.
    public func send(_ request: OutboundRequest) throws(HTTPClientError) -> OutboundResponse {
        try request.validate(allowingHTTP: configuration.allowsPlainHTTP)
        guard gate.enter(waitingAtMost: configuration.queueTimeout) else { throw .busy }
        defer { gate.leave() }
        let handle = try pool.take()
        defer { pool.give(handle) }
        return try perform(request, on: handle)
    }
}
