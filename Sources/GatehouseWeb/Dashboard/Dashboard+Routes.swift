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
        add("GET", "/environments/{environmentId}", html(environmentOverviewPage))
        add("POST", "/environments/{environmentId}", html(updateEnvironment))
        add("GET", "/environments/{environmentId}/delete", html(deleteEnvironmentPage))
        add("POST", "/environments/{environmentId}/delete", html(deleteEnvironment))
        add("GET", "/environments/{environmentId}/apps", html(environmentAppsPage))
        add("POST", "/environments/{environmentId}/apps/android", html(addAndroidApp))
        add("GET", "/environments/{environmentId}/apps/android/{packageName}", html(editAndroidAppPage))
        add("POST", "/environments/{environmentId}/apps/android/{packageName}", html(updateAndroidApp))
        add("GET", "/environments/{environmentId}/apps/android/{packageName}/remove", html(removeAndroidAppPage))
        add("POST", "/environments/{environmentId}/apps/android/{packageName}/remove", html(removeAndroidApp))
        add("POST", "/environments/{environmentId}/apps/apple", html(addAppleAppID))
        add("GET", "/environments/{environmentId}/apps/apple/{appId}/remove", html(removeAppleAppIDPage))
        add("POST", "/environments/{environmentId}/apps/apple/{appId}/remove", html(removeAppleAppID))
        add("POST", "/environments/{environmentId}/play-integrity/service-account", html(setServiceAccount))
        add("POST", "/environments/{environmentId}/play-integrity/local", html(setLocalKeys))
        add("GET", "/environments/{environmentId}/play-integrity/{credential}/remove", html(removeCredentialPage))
        add("POST", "/environments/{environmentId}/play-integrity/{credential}/remove", html(removeCredential))
        add("GET", "/environments/{environmentId}/keys", html(environmentKeysPage))
        add("POST", "/environments/{environmentId}/keys", html(createEnvironmentKey))
        add("POST", "/environments/{environmentId}/keys/{keyId}/roll", html(rollEnvironmentKey))
        add("GET", "/environments/{environmentId}/keys/{keyId}/revoke", html(revokeEnvironmentKeyPage))
        add("POST", "/environments/{environmentId}/keys/{keyId}/revoke", html(revokeEnvironmentKey))
    }
}
