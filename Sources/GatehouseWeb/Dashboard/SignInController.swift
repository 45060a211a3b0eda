import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// First-admin setup, sign-in and sign-out.
struct SignInController: Sendable {
    let pages: Pages
    let admins: Admins
    let sessions: Sessions
    let setup: SetupLink
    let clock: @Sendable () -> Int64

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/setup/{token}", pages.html(setupPage))
        add("POST", "/setup/{token}", pages.html(setupSubmit))
        add("GET", "/login", pages.html(loginPage))
        add("POST", "/login", pages.html(loginSubmit))
        add("POST", "/logout", pages.html(logout))
    }

    func setupPage(_ request: Request) throws -> Response {
        let token = try request.parameter("token")
        guard try admins.count() == 0, setup.isValid(token, now: clock()) else {
            throw DomainError.notFound("this setup link is used or expired; restart gatehouse serve for a new one, or sign in")
        }
        return pages.page("pages/setup", title: "Set up Gatehouse", ["token": .string(token)], context: nil)
    }

    func setupSubmit(_ request: Request) throws -> Response {
        let token = try request.parameter("token")
        guard try admins.count() == 0, setup.isValid(token, now: clock()) else {
            throw DomainError.notFound("this setup link is used or expired; restart gatehouse serve for a new one, or sign in")
        }
        let form = try Form.read(request)
        let email = form["email"] ?? ""
        let password = form["password"] ?? ""
        var errors = Admins.validate(email: email, password: password)
        if password != (form["confirm"] ?? "") { errors.add("/confirm", "does not match the password") }
        do {
            try errors.throwIfAny()
            try admins.create(email: email, password: password, role: .owner, actor: .system)
        } catch let error as ValidationError {
            return pages.page("pages/setup", title: "Set up Gatehouse", ["token": .string(token), "email": .string(email), "errors": fieldErrors(error)], context: nil, status: 422)
        }
        setup.consume()
        let (cookie, _) = try sessions.login(email: email, password: password, address: pages.clientAddress(request))
        try sessions.flash(cookie, Flash("Welcome! You are the first owner of this Gatehouse. Create an environment to register your apps."))
        var response = Redirect(to: "/environments").response
        response.headers.add("Set-Cookie", Cookies.sessionCookie(cookie, secure: pages.secure(request), maxAge: sessions.policy.absoluteTimeout))
        return response
    }

    func loginPage(_ request: Request) throws -> Response {
        if try pages.optionalContext(request) != nil { throw Redirect(to: "/environments") }
        if try admins.count() == 0 {
            return pages.page("pages/login", title: "Sign in", ["noAdmin": true], context: nil)
        }
        return pages.page("pages/login", title: "Sign in", [:], context: nil)
    }

    func loginSubmit(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let email = form["email"] ?? ""
        do {
            let (token, _) = try sessions.login(email: email, password: form["password"] ?? "", address: pages.clientAddress(request))
            // A new session id at every login (fixation): any session the browser held is ended.
            if let old = Cookies.value(Cookies.session, in: request) { try sessions.logout(old) }
            var response = Redirect(to: "/environments").response
            response.headers.add("Set-Cookie", Cookies.sessionCookie(token, secure: pages.secure(request), maxAge: sessions.policy.absoluteTimeout))
            return response
        } catch let error as DomainError {
            let message: String
            var status = 401
            switch error {
            case .throttled(let m, _):
                message = Problem.sentence(m)
                status = 429
            default:
                message = "That e-mail and password do not match an active admin."
            }
            return pages.page("pages/login", title: "Sign in", ["email": .string(email), "error": .string(message)], context: nil, status: status)
        }
    }

    func logout(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.context(request)
        try pages.checkCSRF(form, context)
        try sessions.logout(context.token)
        var response = Redirect(to: "/login").response
        response.headers.add("Set-Cookie", Cookies.clearSession(secure: pages.secure(request)))
        return response
    }
}
