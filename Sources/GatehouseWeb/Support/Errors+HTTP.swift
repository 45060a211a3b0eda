import Gatehouse
import HTTP
import HTTPServer
import JSON
import SQLite

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

extension DatabaseError: HTTPResponseError {
    /// Constraint violations are conflicts with stored data (409); anything else stays a 500 with no SQLite text.
    public var status: Int {
        switch kind {
        case .uniqueConstraint, .primaryKeyConstraint, .foreignKeyConstraint, .checkConstraint: 409
        case .busy: 503
        default: 500
        }
    }

    public func response(requestID: String) -> Response {
        switch status {
        case 409:
            return Problem(status: 409, slug: "conflict", title: "Conflict", detail: "The change conflicts with stored data (a duplicate or a reference to something missing).").response
        case 503:
            var p = Problem(status: 503, slug: "busy", title: "Busy", detail: "The database is busy; retry shortly.")
            p.headers.set("Retry-After", "1")
            return p.response
        default:
            return Response.problem(status: 500, requestID: requestID)
        }
    }
}
