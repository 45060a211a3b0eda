import Foundation
import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// What every dashboard page shares: who is signed in (session, role, CSRF token), rendering a template inside the
/// layout, redirects with a flash message, and error pages. Each controller holds one.
struct Pages: Sendable {
    let sessions: Sessions
    let views: Views
    let configuration: Configuration

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
        return page("pages/error", title: title, ["status": .int(status), "message": .string(Problem.sentence(message))], context: context, status: status)
    }

    /// The signed-in admin, or a redirect to the login page.
    func context(_ request: Request) throws -> DashboardContext {
        guard let context = try optionalContext(request) else { throw Redirect(to: "/login") }
        return context
    }

    func optionalContext(_ request: Request) throws -> DashboardContext? {
        guard let token = Cookies.value(Cookies.session, in: request), let session = try sessions.session(token) else { return nil }
        return DashboardContext(session: session, token: token, request: request, address: clientAddress(request))
    }

    /// The signed-in admin allowed to change things (owner or editor), after checking the form's CSRF token.
    /// Viewers and forged posts are refused with 403 and nothing changes.
    func editor(_ request: Request, form: Form) throws -> DashboardContext {
        let context = try self.context(request)
        try checkCSRF(form, context)
        try requireEditor(context)
        return context
    }

    /// The signed-in admin allowed to change things, for a page that leads to a change (a confirmation); a viewer
    /// reaching it by its address gets the 403 page.
    func editor(_ request: Request) throws -> DashboardContext {
        let context = try self.context(request)
        try requireEditor(context)
        return context
    }

    /// Refuses a form whose CSRF token is missing or not the session's (compared in constant time).
    func checkCSRF(_ form: Form, _ context: DashboardContext) throws {
        guard let presented = form["csrf"], RandomToken.matches(presented, context.session.csrfToken) else {
            throw DomainError.forbidden("this form is stale or was not sent by Gatehouse (missing or wrong CSRF token); reload the page and try again")
        }
    }

    /// Confirmation pages are for editors only; a viewer reaching one by its address gets the 403 page.
    func requireEditor(_ context: DashboardContext) throws {
        guard context.session.admin.role.canEdit else {
            throw DomainError.forbidden("viewers can read but not change anything; ask an owner for the editor role")
        }
    }

    /// The signed-in owner (after checking the form's CSRF token when there is a form); other roles get a 403 page.
    func owner(_ request: Request, form: Form? = nil, what: String = "manage admins") throws -> DashboardContext {
        let context = try self.context(request)
        if let form { try checkCSRF(form, context) }
        guard context.session.admin.role == .owner else { throw DomainError.forbidden("only owners \(what)") }
        return context
    }

    /// An HTML page: template `name` with `values` inside the layout (the admin, the CSRF token, the flash message).
    func page(_ name: String, title: String, _ values: [String: MustacheValue], context: DashboardContext?, status: Int = 200,
              section: String = "") -> Response {
        views.page(name, title: title, values, context: context, status: status, section: section)
    }

    /// Redirects after a successful post, leaving a flash message for the next page. The flash shows at the top of
    /// that page, so `location` has no fragment: a section scrolled into view would hide the message.
    func done(_ context: DashboardContext, to location: String, flash: String, tone: Flash.Tone = .done) throws -> Response {
        try sessions.flash(context.token, Flash(flash, tone: tone))
        return Redirect(to: location).response
    }

    /// Whether responses to this request should mark cookies Secure.
    func secure(_ request: Request) -> Bool {
        configuration.secureCookies || (configuration.trustProxy && request.headers["X-Forwarded-Proto"]?.lowercased() == "https")
    }

    /// The client's address (``ClientAddress``: the peer, or the hop our trusted proxies appended).
    func clientAddress(_ request: Request) -> String {
        ClientAddress(trustedProxies: configuration.trustedProxies).of(request)
    }
}
