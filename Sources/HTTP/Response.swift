/// An HTTP response built by a handler: status, header fields and a complete body.
/// The serializer adds `Content-Length` and `Date`; `Connection` is decided by the server.
public struct Response: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// The header fields to send; the serializer adds framing fields.
    public var headers: Headers
    /// The complete body.
    public var body: [UInt8]

    /// A response with a status, fields and body.
    public init(status: Int = 200, headers: Headers = Headers(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a UTF-8 body and its content type.
    public init(status: Int = 200, contentType: String, body: String) {
        self.init(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8))
    }
}
