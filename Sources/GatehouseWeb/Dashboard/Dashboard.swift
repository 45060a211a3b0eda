import Foundation
import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// The server-rendered admin dashboard: shared plumbing for every page (sessions, CSRF, roles, redirects, error
/// pages). The pages live in `Dashboard+*.swift`; they call the same domain operations as the REST API.
struct Dashboard: Sendable {
    let services: Services
    let sessions: Sessions
    let views: Views
    let configuration: Configuration
    let setup: SetupLink

    /// A page handler that may throw; `html` turns its errors into pages.
    typealias PageHandler = @Sendable (Request) throws -> Response

    /// Wraps a page handler: redirects, 403/404 and unexpected errors become HTML pages (never problem+json).
    func html(_ handler: @escaping PageHandler) -> Router.Handler {
        { request in
            do {
                return try handler(request)
            } catch let redirect as Redirect {
                return redirect.response
            } catch let error as DomainError {
                switch error {
                case .notFound(let m): return errorPage(404, "Not found", m, request: request)
                case .forbidden(let m): return errorPage(403, "Not allowed", m, request: request)
                case .conflict(let m): return errorPage(409, "Conflict", m, request: request)
                case .preconditionFailed(let m): return errorPage(412, "Changed meanwhile", m, request: request)
                case .unauthenticated: return Redirect(to: "/login").response
                case .throttled(let m, _): return errorPage(429, "Too many attempts", m, request: request)
                case .unavailable(let m, _): return errorPage(503, "Busy", m, request: request)
                }
            }
        }
    }

    func errorPage(_ status: Int, _ title: String, _ message: String, request: Request) -> Response {
        let context = try? optionalContext(request)
        return views.page("pages/error", title: title, ["status": .int(status), "message": .string(Problem.sentence(message))], context: context, status: status)
    }

    /// The signed-in admin, or a redirect to the login page.
    func context(_ request: Request) throws -> DashboardContext {
        guard let context = try optionalContext(request) else { throw Redirect(to: "/login") }
        return context
    }

    func optionalContext(_ request: Request) throws -> DashboardContext? {
        guard let token = Cookies.value(Cookies.session, in: request), let session = try sessions.session(token) else { return nil }
        return DashboardContext(session: session, token: token, request: request)
    }

    /// The signed-in admin allowed to change things (owner or editor), after checking the form's CSRF token.
    /// Viewers and forged posts are refused with 403 and nothing changes.
    func editor(_ request: Request, form: Form) throws -> DashboardContext {
        let context = try self.context(request)
        try checkCSRF(form, context)
        guard context.session.admin.role.canEdit else { throw DomainError.forbidden("viewers can read but not change anything; ask an owner for the editor role") }
        return context
    }

    /// Refuses a form whose CSRF token is missing or not the session's (compared in constant time).
    func checkCSRF(_ form: Form, _ context: DashboardContext) throws {
        guard let presented = form["csrf"], RandomToken.matches(presented, context.session.csrfToken) else {
            throw DomainError.forbidden("this form is stale or was not sent by Gatehouse (missing or wrong CSRF token); reload the page and try again")
        }
    }

    /// Redirects after a successful post, leaving a flash message for the next page.
    func done(_ context: DashboardContext, to location: String, flash: String) throws -> Response {
        try sessions.flash(context.token, flash)
        return Redirect(to: location).response
    }

    /// Whether responses to this request should mark cookies Secure.
    func secure(_ request: Request) -> Bool {
        configuration.secureCookies || (configuration.trustProxy && request.headers["X-Forwarded-Proto"]?.lowercased() == "https")
    }

    /// Percent-encodes a query value (unreserved characters kept).
    static func queryEncode(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    /// The client's address: the peer, or the first X-Forwarded-For hop behind a trusted proxy.
    func clientAddress(_ request: Request) -> String {
        if configuration.trustProxy, let forwarded = request.headers["X-Forwarded-For"]?.split(separator: ",").first {
            return forwarded.trimmingCharacters(in: .whitespaces)
        }
        return request.remoteAddress ?? "unknown"
    }
}

/// A 303 See Other to another page (Post/Redirect/Get).
struct Redirect: Error {
    let location: String

    init(to location: String) {
        self.location = location
    }

    var response: Response {
        Response(status: 303, headers: ["Location": location, "Cache-Control": "no-store"])
    }
}
