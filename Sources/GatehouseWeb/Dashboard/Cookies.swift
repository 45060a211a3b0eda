import Foundation
import HTTP

/// Reading the `Cookie` header and writing the session cookie (RFC 6265).
enum Cookies {
    static let session = "gatehouse_session"

    /// The value of cookie `name`, or nil.
    static func value(_ name: String, in request: Request) -> String? {
        for header in request.headers.values("Cookie") {
            for pair in header.split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces) == name {
                    return String(kv[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// `Set-Cookie` for a session token: HttpOnly, SameSite=Lax, Secure when served over TLS, for the whole site.
    static func sessionCookie(_ token: String, secure: Bool, maxAge: Int64) -> String {
        "\(session)=\(token); Path=/; HttpOnly; SameSite=Lax; Max-Age=\(maxAge)" + (secure ? "; Secure" : "")
    }

    /// The sign-in form's CSRF token, before any session exists (login CSRF: a cross-site form that signs the
    /// victim in as the attacker; SameSite does not stop a top-level POST).
    static let signIn = "gatehouse_signin"

    /// `Set-Cookie` for the sign-in form's token: HttpOnly, SameSite=Strict, only sent to `/login`, one hour.
    static func signInCookie(_ token: String, secure: Bool) -> String {
        "\(signIn)=\(token); Path=/login; HttpOnly; SameSite=Strict; Max-Age=3600" + (secure ? "; Secure" : "")
    }

    /// `Set-Cookie` that deletes the sign-in form's token (once signed in).
    static func clearSignIn(secure: Bool) -> String {
        "\(signIn)=; Path=/login; HttpOnly; SameSite=Strict; Max-Age=0" + (secure ? "; Secure" : "")
    }

    /// `Set-Cookie` that deletes the session cookie.
    static func clearSession(secure: Bool) -> String {
        "\(session)=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0" + (secure ? "; Secure" : "")
    }
}
