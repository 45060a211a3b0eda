import Foundation
import Gatehouse
import HTTP

/// Signing in to the dashboard from a test, as a browser would: POST /login, keep the cookie, read the CSRF token.
extension TestApp {
    /// A browser-like session: the cookie header value and the CSRF token of its forms.
    public struct BrowserSession: Sendable {
        public let cookie: String
        public let csrf: String

        /// Headers carrying the session cookie.
        public var headers: Headers { ["Cookie": cookie] }
    }

    /// Creates an admin with `role` (unless the e-mail exists) and signs in.
    public func signIn(role: Admin.Role = .owner, email: String? = nil, password: String = "correct horse battery staple") throws -> BrowserSession {
        let email = email ?? "\(role.rawValue)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        if try !application.domain.admins.list().contains(where: { $0.email == email }) {
            try application.domain.admins.create(email: email, password: password, role: role, actor: .system)
        }
        let response = postForm("/login", ["email": email, "password": password])
        guard response.status == 303, let setCookie = response.headers.values("Set-Cookie").first(where: { $0.hasPrefix("gatehouse_session=") }),
              let cookie = setCookie.split(separator: ";").first.map(String.init)
        else { throw SignInError(status: response.status) }
        let page = send("GET", "/environments", headers: ["Cookie": cookie])
        return BrowserSession(cookie: cookie, csrf: Self.csrfToken(in: page.text) ?? "")
    }

    /// POSTs an urlencoded form. With `csrf`, the form carries its CSRF token as a browser's would: the session's, or
    /// for `/login` the sign-in form's (fetched with its cookie from `GET /login` first).
    @discardableResult
    public func postForm(_ path: String, _ fields: [String: String], session: BrowserSession? = nil, csrf: Bool = true,
                         headers extra: Headers = Headers()) -> TestResponse {
        var fields = fields
        var headers: Headers = ["Content-Type": "application/x-www-form-urlencoded"]
        if let session { headers.set("Cookie", session.cookie) }
        if let session, csrf, fields["csrf"] == nil { fields["csrf"] = session.csrf }
        if path == "/login", session == nil, csrf, fields["csrf"] == nil, let form = signInForm() {
            fields["csrf"] = form.csrf
            headers.set("Cookie", form.cookie)
        }
        for field in extra { headers.set(field.name, field.value) }
        let body = fields.sorted { $0.key < $1.key }.map { "\(Self.formEncode($0.key))=\(Self.formEncode($0.value))" }.joined(separator: "&")
        return send("POST", path, headers: headers, body: Array(body.utf8))
    }

    /// The sign-in form's cookie (`name=value`) and CSRF token, as `GET /login` hands them out.
    public func signInForm() -> (cookie: String, csrf: String)? {
        let page = send("GET", "/login")
        guard let cookie = page.headers.values("Set-Cookie").first(where: { $0.hasPrefix("gatehouse_signin=") })?.split(separator: ";").first,
              let csrf = Self.csrfToken(in: page.text)
        else { return nil }
        return (String(cookie), csrf)
    }

    /// The value of the first `name="csrf"` hidden field in a page.
    public static func csrfToken(in html: String) -> String? {
        guard let range = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func formEncode(_ s: String) -> String {
        URLEncoding.percentEncode(s, spaceAsPlus: true)
    }
}

/// Signing in failed in a test.
public struct SignInError: Error {
    public let status: Int
}
