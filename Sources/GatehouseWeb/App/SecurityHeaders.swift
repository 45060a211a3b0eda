import HTTP
import HTTPServer

/// Response headers every page and API answer carries: a strict CSP (no inline script or style), no framing,
/// no sniffing, same-origin referrers.
enum SecurityHeaders {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static let middleware: Router.Middleware = { request, next in
        // Inside the router's recovery (Router.recovering), so every error is an answer already.
        var response = try next(request)
        response.headers.set("Content-Security-Policy", contentSecurityPolicy)
        response.headers.set("X-Frame-Options", "DENY")
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "same-origin")
        return response
    }
}
