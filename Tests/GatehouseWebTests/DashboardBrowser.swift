import Foundation
import HTTP
import Simulator
import Testing

/// A browser's side of the dashboard of a served `gatehouse` over a real socket: forms posted urlencoded with the
/// cookies the server set, the first owner created through the one-time setup link the server printed.
struct DashboardBrowser {
    let client: PlainHTTP

    /// POSTs `fields` urlencoded with `cookies` (`name=value` each) and `headers`.
    func post(_ path: String, _ fields: [(String, String)], cookies: [String] = [], headers: [(String, String)] = []) throws -> PlainHTTP.Response {
        let body = fields.map { URLEncoding.percentEncode($0.0, spaceAsPlus: true) + "=" + URLEncoding.percentEncode($0.1, spaceAsPlus: true) }
            .joined(separator: "&")
        var all = [("Content-Type", "application/x-www-form-urlencoded")] + headers
        if !cookies.isEmpty { all.append(("Cookie", cookies.joined(separator: "; "))) }
        return try client.send("POST", path, headers: all, body: Array(body.utf8))
    }

    /// The sign-in form's cookie (`name=value`) and CSRF token, from `GET /login`.
    func signInForm() throws -> (cookie: String, csrf: String) {
        let page = try client.send("GET", "/login")
        let cookie = try #require(Self.cookie("gatehouse_signin", in: page), "GET /login set no sign-in cookie")
        let csrf = try #require(TrafficPageTests.hidden("csrf", in: page.text), "the sign-in form has no csrf field")
        return (cookie, csrf)
    }

    /// Signs in as a browser does (the form's token and cookie); the answer.
    func signIn(_ email: String, _ password: String, headers: [(String, String)] = []) throws -> PlainHTTP.Response {
        let form = try signInForm()
        return try post("/login", [("csrf", form.csrf), ("email", email), ("password", password)], cookies: [form.cookie], headers: headers)
    }

    /// Creates the first owner through the setup link path (`/setup/…`) the server printed.
    func createOwner(setupPath: String, email: String, password: String) throws {
        let created = try post(setupPath, [("email", email), ("password", password), ("confirm", password)])
        #expect(created.status == 303, "\(created.status): \(created.text)")
    }

    /// The `name=value` of the `Set-Cookie` named `name` in `response`, when it sets one with a value.
    static func cookie(_ name: String, in response: PlainHTTP.Response) -> String? {
        response.headers.filter { $0.name.lowercased() == "set-cookie" }.compactMap { $0.value.split(separator: ";").first.map(String.init) }
            .first { $0.hasPrefix(name + "=") && $0.count > name.count + 1 }
    }
}

extension DeviceServer {
    /// The path of the one-time setup link the server printed after its first line.
    func setupPath() throws -> String {
        while let line = process.readLine(timeout: 10) {
            if let range = line.range(of: "/setup/") { return String(line[range.lowerBound...].prefix { $0 != " " }) }
        }
        Issue.record("gatehouse serve printed no setup link")
        return "/setup/none"
    }
}
