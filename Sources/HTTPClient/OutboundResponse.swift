/// The answer to an ``OutboundRequest``: any status is a response (a 500 is not an error of the client).
public struct OutboundResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The response's header fields in order, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body, at most ``HTTPClientConfiguration/maxResponseBytes``.
    public var body: [UInt8]
    /// Whether the call went over a connection kept from an earlier call (no new TCP + TLS handshake).
    public var reusedConnection: Bool

    /// A response; see the properties.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], reusedConnection: Bool) {
        self.status = status
        self.headers = headers
        self.body = body
        self.reusedConnection = reusedConnection
    }

    /// The value of the last header field named `name` (compared case-insensitively), or nil.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name.lowercased() == wanted }?.value
    }
}
