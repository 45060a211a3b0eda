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
        add("GET", "/tokens", html(tokensPage))
        add("POST", "/tokens", html(createToken))
        add("GET", "/tokens/{id}/revoke", html(revokeTokenPage))
        add("POST", "/tokens/{id}/revoke", html(revokeToken))
        add("GET", "/admins", html(adminsPage))
        add("POST", "/admins", html(addAdmin))
        add("POST", "/admins/{id}/role", html(changeAdminRole))
        add("GET", "/admins/{id}/disable", html(disableAdminPage))
        add("POST", "/admins/{id}/disable", html(setAdminDisabled(true)))
        add("POST", "/admins/{id}/enable", html(setAdminDisabled(false)))
        add("GET", "/account", html(accountPage))
        add("POST", "/account/password", html(changePassword))
        add("GET", "/audit", html(auditPage))
    }
}
