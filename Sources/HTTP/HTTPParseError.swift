/// Why the parser rejected a request: the status to answer with (400, 413, 414, 417, 431, 501, 505) and a short
/// human reason such as "both Content-Length and Transfer-Encoding". The reason never quotes the client's bytes.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status the server should send before closing the connection.
    public var status: Int
    /// A short message for logs and the error page.
    public var reason: String

    /// An error with its status and reason.
    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    /// "status reason", for logs.
    public var description: String { "\(status) \(reason)" }

    static func badRequest(_ reason: String) -> HTTPParseError { HTTPParseError(status: 400, reason: reason) }
}
