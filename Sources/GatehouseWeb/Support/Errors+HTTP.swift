import Gatehouse
import HTTP
import HTTPServer
import JSON

// The one place where domain errors become HTTP responses (problem+json, RFC 9457).

extension Problem: HTTPResponseError {
    public func response(requestID: String) -> Response { response }
}

extension ValidationError: HTTPResponseError {
    public var status: Int { 422 }
    public func response(requestID: String) -> Response { Problem.validation(self).response }
}

extension DomainError: HTTPResponseError {
    public var status: Int { Problem.domain(self).status }
    public func response(requestID: String) -> Response { Problem.domain(self).response }
}

extension JSONSyntaxError: HTTPResponseError {
    public var status: Int { 400 }
    public func response(requestID: String) -> Response { Problem.malformedJSON(self).response }
}

extension WriteConflict: HTTPResponseError {
    /// A change that could not be committed this moment (a counter window that kept moving): transient, as a busy
    /// database is, so `503` with `Retry-After`; its description is for the log, never the client.
    public var status: Int { 503 }
    public func response(requestID: String) -> Response {
        Problem.domain(.unavailable("the change could not be committed this moment; retry shortly", retryAfter: 1)).response
    }
}
