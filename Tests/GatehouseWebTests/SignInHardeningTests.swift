import TestSupport
import FakeGoogle
import Foundation
import JSON
import Simulator
import Testing

/// The sign-in form and the setup link against a real `gatehouse serve`: the login form needs its CSRF token (login
/// CSRF), and the one-time setup path never reaches the access log.
@Suite("Dashboard: sign-in CSRF and the setup link", .serialized, .needsSyntheticCA)
struct SignInHardeningTests {
    static let password = "correct horse battery staple"

    @Test func aLoginWithoutTheFormsTokenSignsNobodyIn() throws {
        let server = try DeviceServer(["--log-level", "info"])
        let browser = DashboardBrowser(client: server.client)
        let setup = try server.setupPath()
        try browser.createOwner(setupPath: setup, email: "owner@example.com", password: Self.password)

        // A cross-site form posts the right e-mail and password with no token: nothing is signed in.
        let forged = try browser.post("/login", [("email", "owner@example.com"), ("password", Self.password)])
        #expect(forged.status == 403, "\(forged.status)")
        #expect(DashboardBrowser.cookie("gatehouse_session", in: forged) == nil)
        #expect(forged.text.contains("sign in again"))
        // A token of its own, or the page's token without the cookie that goes with it: refused too.
        let form = try browser.signInForm()
        let ownToken = try browser.post("/login", [("csrf", String(repeating: "a", count: 52)), ("email", "owner@example.com"), ("password", Self.password)],
                                        cookies: [form.cookie])
        #expect(ownToken.status == 403)
        let noCookie = try browser.post("/login", [("csrf", form.csrf), ("email", "owner@example.com"), ("password", Self.password)])
        #expect(noCookie.status == 403)
        #expect(DashboardBrowser.cookie("gatehouse_session", in: noCookie) == nil)

        // The form as served, with its cookie: signed in, and the sign-in cookie is cleared.
        let signedIn = try browser.signIn("owner@example.com", Self.password)
        #expect(signedIn.status == 303, "\(signedIn.text)")
        #expect(DashboardBrowser.cookie("gatehouse_session", in: signedIn) != nil)
        #expect(signedIn.headers.contains { $0.name.lowercased() == "set-cookie" && $0.value.hasPrefix("gatehouse_signin=;") })
        let cookieLine = try #require(form.cookie.split(separator: "=").last)
        #expect(cookieLine.count == 52)

        // The setup path's token is in no log line; the path is logged redacted. A worker writes its access lines
        // once it has answered, so the line may land just after the answer: wait for it (a server under load).
        let token = String(setup.dropFirst("/setup/".count))
        #expect(token.count > 20)
        #expect(waitUntil(seconds: 20) { server.log.contains("/setup/[redacted]") } != nil, "\(server.log)")
        #expect(!server.log.contains(token), "the setup token reached the log")
    }
}
