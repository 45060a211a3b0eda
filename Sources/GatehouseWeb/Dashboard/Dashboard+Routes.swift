import HTTP
import HTTPServer

extension Dashboard {
    /// Registers every dashboard page. `add` wraps each handler with metrics; `html` turns errors into pages.
    func register(_ add: (String, String, @escaping Router.Handler) -> Void) {
        add("GET", "/") { _ in Redirect(to: "/environments").response }
        add("GET", "/setup/{token}", html(setupPage))
        add("POST", "/setup/{token}", html(setupSubmit))
        add("GET", "/login", html(loginPage))
        add("POST", "/login", html(loginSubmit))
        add("POST", "/logout", html(logout))
        add("GET", "/environments", html(environmentsPage))
        add("POST", "/environments", html(createEnvironment))
        add("GET", "/environments/{environmentId}/traffic", html(trafficPage))
        add("GET", "/environments/{environmentId}/traffic/add-digest", html(addDigestPage))
        add("POST", "/environments/{environmentId}/traffic/add-digest", html(addDigestSubmit))
    }
}
