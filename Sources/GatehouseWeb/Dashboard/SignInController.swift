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
    let clock: TimeSource

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
            try admins.create(email: email, password: password, role: .owner, actor: .system, onlyIfFirst: true)
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
        return try signInForm(request, try admins.count() == 0 ? ["noAdmin": true] : [:], status: 200)
    }

    func loginSubmit(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let email = form["email"] ?? ""
        // Double submit: the token of the form must be the one of its cookie, which another site can neither read
        // nor set. Without it, nothing is tried (not even the throttle's count).
        guard let expected = Cookies.value(Cookies.signIn, in: request), let presented = form["csrf"],
              Self.isSignInToken(expected), RandomToken.matches(presented, expected) else {
            return try signInForm(request, ["email": .string(email), "error": "This sign-in form expired or was not sent by Gatehouse. It is fresh now: sign in again."],
                                  status: 403, fresh: true)
        }
        do {
            let (token, _) = try sessions.login(email: email, password: form["password"] ?? "", address: pages.clientAddress(request))
            // A new session id at every login (fixation): any session the browser held is ended.
            if let old = Cookies.value(Cookies.session, in: request) { try sessions.logout(old) }
            var response = Redirect(to: "/environments").response
            response.headers.add("Set-Cookie", Cookies.sessionCookie(token, secure: pages.secure(request), maxAge: sessions.policy.absoluteTimeout))
            response.headers.add("Set-Cookie", Cookies.clearSignIn(secure: pages.secure(request)))
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
            return try signInForm(request, ["email": .string(email), "error": .string(message)], status: status)
        }
    }

    /// The sign-in page with its CSRF token: the browser's own (its cookie), or a new one set with the page when it
    /// has none or `fresh` asks for one.
    func signInForm(_ request: Request, _ values: [String: MustacheValue], status: Int, fresh: Bool = false) throws -> Response {
        var values = values
        let kept = fresh ? nil : Cookies.value(Cookies.signIn, in: request).flatMap { Self.isSignInToken($0) ? $0 : nil }
        let token = try kept ?? RandomToken.secret(prefix: "")
        values["csrf"] = .string(token)
        var response = pages.page("pages/login", title: "Sign in", values, context: nil, status: status)
        if kept == nil { response.headers.add("Set-Cookie", Cookies.signInCookie(token, secure: pages.secure(request))) }
        return response
    }

    /// Whether `text` can be a sign-in token this server made (52 base32 letters: 256 bits).
    static func isSignInToken(_ text: String) -> Bool {
        text.utf8.count == 52 && text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "2")...UInt8(ascii: "7")).contains($0) }
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
