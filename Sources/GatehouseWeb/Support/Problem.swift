import Gatehouse
import HTTP
import JSON

/// An error response body in `application/problem+json` (RFC 9457): `type`, `title`, `status`, `detail`, and for
/// validation failures `errors: [{pointer, detail}]` listing every invalid field.
public struct Problem: Error, Sendable {
    public var status: Int
    public var slug: String
    public var title: String
    public var detail: String
    public var errors: [FieldError] = []
    public var headers: Headers = Headers()
    /// Extra members (e.g. `offset` for malformed JSON).
    public var extra: [JSON.Member] = []

    public init(status: Int, slug: String, title: String, detail: String) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
    }

    public var json: JSON {
        var members: [JSON.Member] = [
            .init("type", .string("/problems/\(slug)")),
            .init("title", .string(title)),
            .init("status", .int(status)),
            .init("detail", .string(detail)),
        ]
        if !errors.isEmpty {
            members.append(.init("errors", .array(errors.map { .object([.init("pointer", .string($0.pointer)), .init("detail", .string($0.message))]) })))
        }
        members += extra
        return .object(members)
    }

    public var response: Response {
        var headers = self.headers
        headers.set("Content-Type", "application/problem+json")
        return Response(status: status, headers: headers, body: json.serialized())
    }
}

extension Problem {
    public static func validation(_ error: ValidationError) -> Problem {
        var p = Problem(status: 422, slug: "validation-failed", title: "Invalid request",
                        detail: error.errors.count == 1 ? "1 field is invalid: see errors." : "\(error.errors.count) fields are invalid: see errors.")
        p.errors = error.errors
        return p
    }

    /// A 400 for a request that cannot be read (docs/device-api.md's malformed fields), naming each field by pointer;
    /// `what` says what the fields failed to be ("cannot be read", "not a Play key").
    public static func malformedRequest(_ errors: [FieldError], _ what: String = "cannot be read") -> Problem {
        var p = Problem(status: 400, slug: "malformed-request", title: "Malformed request",
                        detail: errors.count == 1 ? "1 field \(what): see errors." : "\(errors.count) fields \(what): see errors.")
        p.errors = errors
        return p
    }

    /// A 400 naming each invalid field by pointer (the management and receipt APIs' wording).
    public static func badRequest(_ errors: [FieldError]) -> Problem {
        var p = Problem(status: 400, slug: "bad-request", title: "Bad request",
                        detail: errors.count == 1 ? "1 field is invalid: see errors." : "\(errors.count) fields are invalid: see errors.")
        p.errors = errors
        return p
    }

    /// A 429 with `Retry-After`.
    public static func throttled(_ detail: String, retryAfter: Int) -> Problem {
        var p = Problem(status: 429, slug: "throttled", title: "Too many requests", detail: sentence(detail))
        p.headers.set("Retry-After", String(retryAfter))
        return p
    }

    public static func malformedJSON(_ error: JSONSyntaxError) -> Problem {
        var p = Problem(status: 400, slug: "malformed-json", title: "Malformed JSON", detail: "The body is not valid JSON: \(error.message) at byte \(error.offset).")
        p.extra = [.init("offset", .int(error.offset))]
        return p
    }

    public static func domain(_ error: DomainError) -> Problem {
        switch error {
        case .notFound(let m): return Problem(status: 404, slug: "not-found", title: "Not found", detail: sentence(m))
        case .conflict(let m): return Problem(status: 409, slug: "conflict", title: "Conflict", detail: sentence(m))
        case .preconditionFailed(let m): return Problem(status: 412, slug: "precondition-failed", title: "Precondition failed", detail: sentence(m))
        case .unauthenticated(let m):
            var p = Problem(status: 401, slug: "unauthenticated", title: "Authentication required", detail: sentence(m))
            p.headers.set("WWW-Authenticate", "Bearer realm=\"gatehouse\"")
            return p
        case .forbidden(let m): return Problem(status: 403, slug: "forbidden", title: "Forbidden", detail: sentence(m))
        case .throttled(let m, let retryAfter):
            return throttled(m, retryAfter: retryAfter)
        case .unavailable(let m, let retryAfter):
            var p = Problem(status: 503, slug: "busy", title: "Busy", detail: sentence(m))
            p.headers.set("Retry-After", String(retryAfter))
            return p
        }
    }

    /// `s` as a sentence: a capital first letter (unless the first word is a name from code, like `apiKey`, which
    /// keeps its spelling) and a full stop.
    static func sentence(_ s: String) -> String {
        guard let first = s.first else { return s }
        let firstWord = s.prefix { $0 != " " }
        let isCodeName = firstWord.dropFirst().contains { $0.isUppercase }
        let capitalized = isCodeName ? s : first.uppercased() + s.dropFirst()
        return capitalized.hasSuffix(".") ? capitalized : capitalized + "."
    }
}
