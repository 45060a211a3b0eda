/// Why an outbound call failed. Messages name the host, the limit or libcurl's reason; never a header value or a
/// body, which may hold credentials.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration cannot work (an unreadable CA file, a limit below 1); said at start-up.
    case invalidConfiguration(String)
    /// The request cannot be sent as given (not an https URL, a header with a line break…).
    case invalidRequest(String)
    /// All ``HTTPClientConfiguration/maxConcurrentCalls`` slots stayed taken for ``HTTPClientConfiguration/queueTimeout``.
    case busy
    /// The host could not be resolved or reached, or the connection broke before a whole response arrived.
    case unreachable(String)
    /// The call did not finish within its time limit.
    case timedOut
    /// The server's certificate chain or host name did not verify.
    case certificateRejected(String)
    /// The response's body was larger than ``HTTPClientConfiguration/maxResponseBytes`` (the limit given), or its
    /// headers larger than 64 KiB.
    case responseTooLarge(limit: Int)
    /// Any other failure libcurl reported.
    case transferFailed(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidConfiguration(let reason): "outbound HTTP configuration: \(reason)"
        case .invalidRequest(let reason): "outbound request: \(reason)"
        case .busy: "outbound HTTP: too many calls in flight"
        case .unreachable(let reason): "outbound HTTP: unreachable: \(reason)"
        case .timedOut: "outbound HTTP: timed out"
        case .certificateRejected(let reason): "outbound HTTP: certificate rejected: \(reason)"
        case .responseTooLarge(let limit): "outbound HTTP: response larger than its limit (\(limit) bytes of body)"
        case .transferFailed(let reason): "outbound HTTP: \(reason)"
        }
    }
}
