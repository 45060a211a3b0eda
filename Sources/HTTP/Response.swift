/// An HTTP response built by a handler: status, header fields and a complete body.
/// The serializer adds `Content-Length` and `Date`; `Connection` is decided by the server.
public struct Response: Sendable {
    public var status: Int
    public var headers: Headers
    public var body: [UInt8]

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
