import Gatehouse
import HTTP
import Mustache

/// First-admin setup, sign-in and sign-out.
extension Dashboard {
    func setupPage(_ request: Request) throws -> Response {
        let token = try request.parameter("token")
        guard try services.admins.count() == 0, setup.isValid(token, now: services.store.clock()) else {
            throw DomainError.notFound("this setup link is used or expired; restart gatehouse serve for a new one, or sign in")
        }
        return views.page("pages/setup", title: "Set up Gatehouse", ["token": .string(token)], context: nil)
    }

    func setupSubmit(_ request: Request) throws -> Response {
        let token = try request.parameter("token")
        guard try services.admins.count() == 0, setup.isValid(token, now: services.store.clock()) else {
            throw DomainError.notFound("this setup link is used or expired; restart gatehouse serve for a new one, or sign in")
        }
        let form = try Form.read(request)
        let email = form["email"] ?? ""
        let password = form["password"] ?? ""
        var errors = Admins.validate(email: email, password: password)
        if password != (form["confirm"] ?? "") { errors.add("/confirm", "does not match the password") }
        do {
            try errors.throwIfAny()
            try services.admins.create(email: email, password: password, role: .owner, actor: .system)
        } catch let error as ValidationError {
            return views.page("pages/setup", title: "Set up Gatehouse", ["token": .string(token), "email": .string(email), "errors": fieldErrors(error)], context: nil, status: 422)
        }
        setup.consume()
        let (cookie, _) = try sessions.login(email: email, password: password, address: clientAddress(request))
        try sessions.flash(cookie, "Welcome! You are the first owner of this Gatehouse. Create an environment to register your apps.")
        var response = Redirect(to: "/environments").response
        response.headers.add("Set-Cookie", Cookies.sessionCookie(cookie, secure: secure(request), maxAge: sessions.policy.absoluteTimeout))
        return response
    }

    func loginPage(_ request: Request) throws -> Response {
        if try optionalContext(request) != nil { throw Redirect(to: "/environments") }
        if try services.admins.count() == 0 {
            return views.page("pages/login", title: "Sign in", ["noAdmin": true], context: nil)
        }
        return views.page("pages/login", title: "Sign in", [:], context: nil)
    }

    func loginSubmit(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let email = form["email"] ?? ""
        do {
            let (token, _) = try sessions.login(email: email, password: form["password"] ?? "", address: clientAddress(request))
            // A new session id at every login (fixation): any session the browser held is ended.
            if let old = Cookies.value(Cookies.session, in: request) { try sessions.logout(old) }
            var response = Redirect(to: "/environments").response
            response.headers.add("Set-Cookie", Cookies.sessionCookie(token, secure: secure(request), maxAge: sessions.policy.absoluteTimeout))
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
            return views.page("pages/login", title: "Sign in", ["email": .string(email), "error": .string(message)], context: nil, status: status)
        }
    }

    func logout(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try self.context(request)
        try checkCSRF(form, context)
        try sessions.logout(context.token)
        var response = Redirect(to: "/login").response
        response.headers.add("Set-Cookie", Cookies.clearSession(secure: secure(request)))
        return response
    }
}
