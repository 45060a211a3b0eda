import Foundation
import Synchronization
import Gatehouse
import GatehouseTesting
import HTTP
import Testing

/// The dashboard's security properties, driven in-process like a browser, with the clock moved by hand.
@Suite("Dashboard security")
struct DashboardSecurityTests {
    static let password = "correct horse battery staple"

    /// The `gatehouse_session=…` pair a response sets, if any.
    static func sessionCookie(_ response: TestResponse) -> String? {
        response.headers.values("Set-Cookie").first { $0.hasPrefix("gatehouse_session=") }?.split(separator: ";").first.map(String.init)
    }

    /// The message of the login page's error notice.
    static func loginError(_ response: TestResponse) -> String? {
        guard let start = response.text.range(of: "id=\"login-error\">"), let end = response.text[start.upperBound...].range(of: "</p>") else { return nil }
        return String(response.text[start.upperBound..<end.lowerBound])
    }

    static func isSignedOut(_ response: TestResponse) -> Bool {
        response.status == 303 && response.headers["Location"] == "/login"
    }

    // MARK: Sessions

    @Test func manyPeopleBehindOneAddressCanSignInAtOnce() throws {
        let app = try TestApp()
        let emails = (0..<12).map { "person\($0)@example.com" }
        for email in emails {
            try app.application.domain.admins.create(email: email, password: "correct horse battery staple", role: .viewer, actor: .system)
        }
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: emails.count) { i in
            let status = app.postForm("/login", ["email": emails[i], "password": "correct horse battery staple"]).status
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 } == Array(repeating: 303, count: emails.count))
    }

    @Test func aPasswordTypedAsTheEmailNeverReachesTheAuditLog() throws {
        let app = try TestApp()
        _ = try app.signIn(role: .owner, email: "owner@example.com")
        app.postForm("/login", ["email": "hunter2-my-password", "password": "whatever it is"])
        app.postForm("/login", ["email": "owner@example.com", "password": "wrong password here"])
        let entries = try app.application.domain.audit.list(limit: 20).entries
        let failed = entries.filter { $0.action == "admin.login.failed" }
        #expect(failed.count == 2)
        #expect(failed.contains { $0.actor.name == "(unknown e-mail)" })
        #expect(failed.contains { $0.actor.name == "owner@example.com" && $0.actor.id != nil })
        #expect(!entries.contains { "\($0)".contains("hunter2") })
    }

    @Test func idleExpiryIsExact() throws {
        let app = try TestApp()
        let idle = SessionPolicy().idleTimeout
        let session = try app.signIn(role: .editor)
        // A use shortly after the last one: the idle clock restarts from this use, not from an earlier write.
        app.clock.advance(by: 30)
        #expect(app.send("GET", "/tokens", headers: session.headers).status == 200)
        app.clock.advance(by: idle - 1)
        #expect(app.send("GET", "/tokens", headers: session.headers).status == 200)
        app.clock.advance(by: idle - 1)
        #expect(app.send("GET", "/tokens", headers: session.headers).status == 200)
        app.clock.advance(by: idle)
        #expect(Self.isSignedOut(app.send("GET", "/tokens", headers: session.headers)))
        // Gone for good, even if the clock went back.
        app.clock.advance(by: -idle)
        #expect(Self.isSignedOut(app.send("GET", "/tokens", headers: session.headers)))
    }

    @Test func absoluteExpiryIsExact() throws {
        let app = try TestApp()
        let policy = SessionPolicy()
        let session = try app.signIn(role: .viewer)
        var elapsed: Int64 = 0
        let step = policy.idleTimeout - 3600
        while elapsed + step < policy.absoluteTimeout {
            app.clock.advance(by: step)
            elapsed += step
            #expect(app.send("GET", "/environments", headers: session.headers).status == 200, "at \(elapsed) s")
        }
        app.clock.advance(by: policy.absoluteTimeout - 1 - elapsed)
        #expect(app.send("GET", "/environments", headers: session.headers).status == 200)
        app.clock.advance(by: 1)
        #expect(Self.isSignedOut(app.send("GET", "/environments", headers: session.headers)))
    }

    @Test func loginRotatesTheSession() throws {
        let app = try TestApp()
        let before = try app.signIn(role: .editor, email: "ed@example.com", password: Self.password)
        // Signing in again from the same browser (holding the first cookie) gives a new cookie and ends the old one.
        let form = try #require(app.signInForm())
        let again = app.send("POST", "/login", headers: ["Cookie": before.cookie + "; " + form.cookie, "Content-Type": "application/x-www-form-urlencoded"],
                             body: Array("csrf=\(form.csrf)&email=ed%40example.com&password=correct+horse+battery+staple".utf8))
        let after = try #require(Self.sessionCookie(again))
        #expect(after != before.cookie)
        #expect(Self.isSignedOut(app.send("GET", "/environments", headers: ["Cookie": before.cookie])))
        #expect(app.send("GET", "/environments", headers: ["Cookie": after]).status == 200)
        // A cookie planted before login (fixation) is never adopted.
        let planted = "gatehouse_session=attackerchosenvalue0000000000000000000000000000"
        let login = app.send("POST", "/login", headers: ["Cookie": planted + "; " + form.cookie, "Content-Type": "application/x-www-form-urlencoded"],
                             body: Array("csrf=\(form.csrf)&email=ed%40example.com&password=correct+horse+battery+staple".utf8))
        #expect(Self.sessionCookie(login).map { $0 != planted } == true)
        #expect(Self.isSignedOut(app.send("GET", "/environments", headers: ["Cookie": planted])))
    }

    @Test func logoutNeedsCSRFAndEndsTheSession() throws {
        let app = try TestApp()
        let session = try app.signIn(role: .viewer)
        #expect(app.postForm("/logout", [:], session: session, csrf: false).status == 403)
        #expect(app.postForm("/logout", ["csrf": "forged"], session: session).status == 403)
        #expect(app.send("GET", "/environments", headers: session.headers).status == 200)
        let out = app.postForm("/logout", [:], session: session)
        #expect(Self.isSignedOut(out))
        #expect(out.headers.values("Set-Cookie").contains { $0.hasPrefix("gatehouse_session=;") && $0.contains("Max-Age=0") })
        #expect(Self.isSignedOut(app.send("GET", "/environments", headers: session.headers)))
        #expect(app.send("GET", "/logout").status == 405)
    }

    // MARK: Throttling

    @Test func accountThrottleRefusesEvenTheRightPassword() throws {
        let app = try TestApp()
        try app.application.domain.admins.create(email: "alice@example.com", password: Self.password, role: .editor, actor: .system)
        for _ in 0..<5 {
            let wrong = app.postForm("/login", ["email": "alice@example.com", "password": "not the password at all"])
            #expect(wrong.status == 401)
        }
        let refused = app.postForm("/login", ["email": "alice@example.com", "password": Self.password])
        #expect(refused.status == 429)
        #expect(Self.sessionCookie(refused) == nil)
        #expect(Self.loginError(refused)?.contains("wait 1 second") == true, "\(Self.loginError(refused) ?? refused.text)")
        app.clock.advance(by: 1)
        let accepted = app.postForm("/login", ["email": "alice@example.com", "password": Self.password])
        #expect(accepted.status == 303)
        #expect(Self.sessionCookie(accepted) != nil)
    }

    /// Attempts in parallel cannot all slip past the throttle while argon2id runs: each is counted before its check.
    @Test func parallelGuessesAreThrottledToo() throws {
        let app = try TestApp()
        try app.application.domain.admins.create(email: "frank@example.com", password: Self.password, role: .viewer, actor: .system)
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let status = app.postForm("/login", ["email": "frank@example.com", "password": "parallel guess \(i)"]).status
            statuses.withLock { $0.append(status) }
        }
        let all = statuses.withLock { $0 }
        #expect(all.filter { $0 == 401 }.count == SessionPolicy().delayAfterFailures, "\(all)")
        #expect(all.filter { $0 == 429 }.count == 16 - SessionPolicy().delayAfterFailures)
    }

    @Test func twentyFailuresLockForFifteenMinutes() throws {
        let app = try TestApp()
        let policy = SessionPolicy()
        try app.application.domain.admins.create(email: "bob@example.com", password: Self.password, role: .viewer, actor: .system)
        var elapsed: Int64 = 0
        for n in 1...20 {
            let wrong = app.postForm("/login", ["email": "bob@example.com", "password": "wrong password number \(n)"])
            #expect(wrong.status == 401, "attempt \(n) was \(wrong.status)")
            if n >= 5, n < 20 {
                // Wait out exactly the delay before the next attempt (doubling from 1 s, at most a minute).
                let delay = min(policy.maxDelay, Int64(1) << (n - 5))
                app.clock.advance(by: delay)
                elapsed += delay
            }
        }
        #expect(elapsed < policy.lockWindow)
        let locked = app.postForm("/login", ["email": "bob@example.com", "password": Self.password])
        #expect(locked.status == 429)
        #expect(Self.loginError(locked)?.contains("locked for 15 minutes") == true, "\(Self.loginError(locked) ?? "")")
        app.clock.advance(by: policy.lockWindow - 1)
        #expect(app.postForm("/login", ["email": "bob@example.com", "password": Self.password]).status == 429)
        app.clock.advance(by: 1)
        #expect(app.postForm("/login", ["email": "bob@example.com", "password": Self.password]).status == 303)
    }

    @Test func addressThrottleSpansAccounts() throws {
        let app = try TestApp { $0.trustProxy = true }
        try app.application.domain.admins.create(email: "carol@example.com", password: Self.password, role: .viewer, actor: .system)
        func login(_ email: String, _ password: String, from address: String) -> TestResponse {
            app.postForm("/login", ["email": email, "password": password], headers: ["X-Forwarded-For": address])
        }
        for n in 0..<5 { #expect(login("guess\(n)@example.com", "some wrong password", from: "203.0.113.7").status == 401) }
        // carol never failed, but her right password from that address waits.
        #expect(login("carol@example.com", Self.password, from: "203.0.113.7").status == 429)
        #expect(login("carol@example.com", Self.password, from: "198.51.100.2").status == 303)
    }

    @Test func unknownAccountsAreRefusedLikeWrongPasswords() throws {
        let app = try TestApp()
        try app.application.domain.admins.create(email: "dave@example.com", password: Self.password, role: .viewer, actor: .system)
        let wrong = app.postForm("/login", ["email": "dave@example.com", "password": "not dave's password"])
        let unknown = app.postForm("/login", ["email": "nobody@example.com", "password": "not dave's password"])
        #expect(wrong.status == 401)
        #expect(unknown.status == wrong.status)
        #expect(Self.loginError(wrong) != nil)
        #expect(Self.loginError(unknown) == Self.loginError(wrong))
    }

    // MARK: CSRF and roles

    @Test func forgedPostsChangeNothing() throws {
        let app = try TestApp()
        let owner = try app.signIn(role: .owner)
        let services = app.application.domain
        let adminsBefore = try services.admins.list().count
        for csrf in [nil, "forged-token", ""] as [String?] {
            var fields = ["name": "Forged", "scope": "write"]
            if let csrf { fields["csrf"] = csrf }
            let response = app.postForm("/tokens", fields, session: owner, csrf: false)
            #expect(response.status == 403)
            #expect(response.text.contains("CSRF"))
            var admin = ["email": "forged@example.com", "password": "long enough password", "role": "owner"]
            if let csrf { admin["csrf"] = csrf }
            #expect(app.postForm("/admins", admin, session: owner, csrf: false).status == 403)
            #expect(app.postForm("/environments", ["name": "Forged", "kind": "production"].merging(csrf.map { ["csrf": $0] } ?? [:]) { a, _ in a },
                                 session: owner, csrf: false).status == 403)
        }
        #expect(try services.tokens.list().isEmpty)
        #expect(try services.admins.list().count == adminsBefore)
        #expect(try services.environments.list().isEmpty)
        // Another session's token is no good either.
        let other = try app.signIn(role: .owner)
        #expect(app.postForm("/tokens", ["name": "Forged", "scope": "read", "csrf": other.csrf], session: owner, csrf: false).status == 403)
        #expect(try services.tokens.list().isEmpty)
    }

    @Test(arguments: ["/environments", "/tokens", "/audit"])
    func viewersSeeNoForms(path: String) throws {
        let app = try TestApp()
        let viewer = try app.signIn(role: .viewer)
        let page = app.send("GET", path, headers: viewer.headers)
        #expect(page.status == 200)
        let posts = page.text.components(separatedBy: "method=\"post\"").count - 1
        #expect(posts == 1, "\(path) has \(posts) POST forms")
        #expect(page.text.contains("action=\"/logout\""))
    }

    @Test func viewerPostsAreRefused() throws {
        let app = try TestApp()
        let viewer = try app.signIn(role: .viewer)
        let tokenID = try app.application.domain.tokens.create(name: "Existing", scope: .read, actor: .system).token.id
        #expect(app.postForm("/tokens", ["name": "Mine", "scope": "write"], session: viewer).status == 403)
        #expect(app.postForm("/environments", ["name": "Mine", "kind": "production"], session: viewer).status == 403)
        #expect(app.send("GET", "/tokens/\(tokenID)/revoke", headers: viewer.headers).status == 403)
        #expect(app.postForm("/tokens/\(tokenID)/revoke", [:], session: viewer).status == 403)
        #expect(app.postForm("/admins", ["email": "x@example.com", "password": "long enough password", "role": "owner"], session: viewer).status == 403)
        let tokens = try app.application.domain.tokens.list()
        #expect(tokens.count == 1)
        #expect(tokens.first?.revokedAt == nil)
        #expect(try app.application.domain.environments.list().isEmpty)
    }

    @Test(arguments: [(Admin.Role.owner, 200), (.editor, 403), (.viewer, 403)])
    func onlyOwnersOpenAdmins(role: Admin.Role, status: Int) throws {
        let app = try TestApp()
        let session = try app.signIn(role: role)
        let page = app.send("GET", "/admins", headers: session.headers)
        #expect(page.status == status)
        #expect(page.text.contains("href=\"/admins\"") == (role == .owner))
        if role != .owner {
            #expect(app.postForm("/admins", ["email": "x@example.com", "password": "long enough password", "role": "owner"], session: session).status == 403)
            #expect(try app.application.domain.admins.list().count == 1)
        }
    }

    // MARK: Headers and cookies

    @Test func authenticatedPagesCarrySecurityHeaders() throws {
        let app = try TestApp()
        let session = try app.signIn(role: .owner)
        for path in ["/environments", "/tokens", "/admins", "/account", "/audit"] {
            let page = app.send("GET", path, headers: session.headers)
            #expect(page.status == 200)
            let csp = try #require(page.headers["Content-Security-Policy"])
            #expect(!csp.contains("unsafe-inline"))
            #expect(csp.contains("script-src 'self'"))
            #expect(csp.contains("frame-ancestors 'none'"))
            #expect(page.headers["X-Frame-Options"] == "DENY")
            #expect(page.headers["X-Content-Type-Options"] == "nosniff")
            #expect(page.headers["Referrer-Policy"] == "same-origin")
            #expect(page.headers["Cache-Control"] == "no-store")
            #expect(!page.text.contains("style=\""))
            #expect(!page.text.contains("<script>"))
        }
    }

    enum Transport: String, CaseIterable, Sendable {
        case plain, secureCookies, proxiedHTTPS, proxiedHTTPUntrusted
    }

    @Test(arguments: Transport.allCases)
    func sessionCookieAttributes(transport: Transport) throws {
        let app = try TestApp {
            $0.secureCookies = transport == .secureCookies
            $0.trustProxy = transport == .proxiedHTTPS
        }
        try app.application.domain.admins.create(email: "erin@example.com", password: Self.password, role: .viewer, actor: .system)
        var headers = Headers()
        if transport == .proxiedHTTPS || transport == .proxiedHTTPUntrusted { headers.set("X-Forwarded-Proto", "https") }
        let login = app.postForm("/login", ["email": "erin@example.com", "password": Self.password], headers: headers)
        #expect(login.status == 303)
        let cookie = try #require(login.headers.values("Set-Cookie").first { $0.hasPrefix("gatehouse_session=") })
        let attributes = Set(cookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(attributes.contains("HttpOnly"))
        #expect(attributes.contains("SameSite=Lax"))
        #expect(attributes.contains("Path=/"))
        #expect(attributes.contains("Secure") == (transport == .secureCookies || transport == .proxiedHTTPS))
    }

    // MARK: Secrets

    /// A whole scripted session (setup, sign-in, an environment with its secret key, a management token used on the
    /// API, sealed Play Integrity credentials, a password change, every page) leaves no secret in any page body
    /// (Set-Cookie aside; the two shown-once pages are the one place a new secret appears) nor in any log line.
    @Test func noSecretInPagesOrLogs() throws {
        let app = try TestApp()
        var bodies: [String] = []
        func keep(_ response: TestResponse) -> TestResponse {
            bodies.append(response.text)
            return response
        }
        let setupToken = try app.application.setup.issue(now: app.clock.now)
        let newPassword = "a brand new passphrase for erin"
        let setup = app.send("POST", "/setup/\(setupToken)", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                             body: Array("email=owner%40example.com&password=correct+horse+battery+staple&confirm=correct+horse+battery+staple".utf8))
        #expect(setup.status == 303)
        let owner = try app.signIn(role: .owner, email: "owner@example.com", password: Self.password)

        // An environment: its secret key appears once, on the creation response.
        let created = app.postForm("/environments", ["name": "Production", "kind": "production"], session: owner)
        let secretKey = try #require(created.text.range(of: #"sk_[a-z0-9_]+"#, options: .regularExpression).map { String(created.text[$0]) })
        let environmentID = try #require(try app.application.domain.environments.list().first?.id)
        // A management token: shown once, then used on the API.
        let token = app.postForm("/tokens", ["name": "CI", "scope": "write"], session: owner)
        let tokenSecret = try #require(token.text.range(of: #"gtm_[a-z0-9]+"#, options: .regularExpression).map { String(token.text[$0]) })
        let auth: Headers = ["Authorization": "Bearer " + tokenSecret]
        // Sealed credentials through the API.
        let privateKey = try TestKeys.rsaPrivateKeyPEM()
        let decryptionKey = TestKeys.aesKeyBase64()
        let body = """
        {"playIntegrity": {"serviceAccount": \(TestKeys.serviceAccountJSON(privateKeyPEM: privateKey)),
                           "local": {"decryptionKey": "\(decryptionKey)", "verificationKey": "\(try TestKeys.ecPublicKeyBase64())"}}}
        """
        #expect(keep(app.send("PATCH", "/api/management/v1/environments/\(environmentID)", headers: auth, body: Array(body.utf8))).status == 200)
        #expect(keep(app.send("GET", "/api/management/v1/environments/\(environmentID)", headers: auth)).status == 200)
        #expect(keep(app.send("GET", "/api/management/v1/audit", headers: auth)).status == 200)
        // A failed sign-in with a password typed wrong, then a password change with a wrong current password first.
        #expect(keep(app.postForm("/login", ["email": "owner@example.com", "password": Self.password + "x"])).status == 401)
        #expect(keep(app.postForm("/account/password", ["current": Self.password + "x", "password": newPassword, "confirm": newPassword], session: owner)).status == 422)
        #expect(keep(app.postForm("/account/password", ["current": Self.password, "password": newPassword, "confirm": newPassword], session: owner)).status == 303)
        for path in ["/environments", "/environments/\(environmentID)", "/tokens", "/audit", "/admins", "/account",
                     "/audit?environment=\(environmentID)"] {
            _ = keep(app.send("GET", path, headers: owner.headers))
        }
        #expect(bodies.contains { $0.contains("playIntegrity") && $0.contains("[sealed]") })

        // The private key's body lines (not its BEGIN/END armour) and the raw secrets.
        let keyLines = privateKey.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        let secrets = [Self.password, newPassword, secretKey, tokenSecret, decryptionKey] + keyLines.prefix(3)
        let logs = app.logLines.all
        #expect(!logs.isEmpty)
        for secret in secrets {
            #expect(!bodies.contains { $0.contains(secret) }, "a page shows \(secret.prefix(6))…")
            #expect(!logs.contains { $0.contains(secret) }, "a log line holds \(secret.prefix(6))…")
            // Escaped into JSON (a log line) a base64 slash would read \/; check that form too.
            let escaped = secret.replacingOccurrences(of: "/", with: "\\/")
            #expect(!logs.contains { $0.contains(escaped) })
        }
    }
}
