import HTTP

/// An error that knows the HTTP response it stands for. Domain errors adopt it; the router turns a thrown
/// `HTTPResponseError` into `response(requestID:)`, and any other error into a bare 500 whose text stays in the log.
public protocol HTTPResponseError: Error {
    /// The status code of the response.
    var status: Int { get }
    /// The response sent to the client for this error.
    func response(requestID: String) -> Response
}

extension HTTPResponseError {
    /// By default an `application/problem+json` body (RFC 9457) with the status's title and the request id.
    public func response(requestID: String) -> Response {
        Response.problem(status: status, requestID: requestID)
    }
}

/// A plain HTTP error for handlers: a status and an optional detail that is safe to show to the client.
public struct HTTPError: HTTPResponseError, Equatable {
    /// The status code of the response.
    public var status: Int
    /// Text for the client (never internal details or secrets).
    public var detail: String?
    /// Extra header fields for the response (e.g. `Allow`, `Retry-After`).
    public var headers: Headers

    /// An error answered with `status`, an optional client-safe `detail` and extra header fields.
    public init(status: Int, detail: String? = nil, headers: Headers = Headers()) {
        self.status = status
        self.detail = detail
        self.headers = headers
    }

    /// The problem+json response with `detail` and the extra header fields.
    public func response(requestID: String) -> Response {
        var response = Response.problem(status: status, detail: detail, requestID: requestID)
        for field in headers { response.headers.set(field.name, field.value) }
        return response
    }
}
