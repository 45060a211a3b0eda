import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// Adding, editing and removing an environment's Android apps. The typed app is checked by the API's rules for one
/// `androidApps[]` element; each change is one domain operation on that app alone.
extension AppsController {
    func addAndroidApp(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let id = try request.parameter("environmentId")
        let input = AndroidAppInput(form: form)
        do {
            let app = try environments.addAndroidApp(try input.app(), to: id, actor: context.actor).androidApps.last
            let name = app?.packageName ?? input.packageName
            return try pages.done(context, to: "/environments/\(id)/apps", flash: "Registered \(name) with \(androidDigestCount(app)).")
        } catch let error as ValidationError {
            let environment = try environments.get(id)
            let values = input.values(action: "/environments/\(environment.id)/apps/android", submit: "Add app", error: error)
            return environmentAppsView(context, environment, values: ["android": values, "problem": Self.problem("android", "the new Android app")], status: 422)
        }
    }

    func editAndroidAppPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let app = try registeredAndroidApp(try request.parameter("packageName"), in: environment)
        return editAndroidAppView(context, environment, app: app, input: AndroidAppInput(app: app), error: nil, status: 200)
    }

    func editAndroidAppView(_ context: DashboardContext, _ environment: Environment, app: AndroidApp, input: AndroidAppInput,
                            error: ValidationError?, status: Int) -> Response {
        let base = "/environments/\(environment.id)/apps/android/\(URLEncoding.percentEncode(app.packageName))"
        var data = EnvironmentHead.values(environment, tab: "apps")
        data["app"] = [
            "packageName": .string(app.packageName),
            "digests": .array(app.certificateDigests.map { .string(CertificateDigest.format($0)) }),
            "outsidePlay": .bool(app.outsidePlay),
            "removeURL": .string(base + "/remove"),
        ]
        data["android"] = input.values(action: base, submit: "Save changes", error: error)
        return pages.page("pages/environment-android-app", title: "\(app.packageName) · \(environment.name)", data, context: context, status: status, section: "environments")
    }

    /// POST /environments/{id}/apps/android/{packageName}: replaces that app (its package name may change too).
    func updateAndroidApp(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let id = try request.parameter("environmentId")
        let packageName = try request.parameter("packageName")
        let input = AndroidAppInput(form: form)
        do {
            let changed = try input.app()
            _ = try environments.updateAndroidApp(packageName, to: changed, in: id, actor: context.actor)
            return try pages.done(context, to: "/environments/\(id)/apps", flash: "Saved \(changed.packageName) with \(androidDigestCount(changed)).")
        } catch let error as ValidationError {
            let environment = try environments.get(id)
            let app = try registeredAndroidApp(packageName, in: environment)
            return editAndroidAppView(context, environment, app: app, input: input, error: error, status: 422)
        }
    }

    func removeAndroidAppPage(_ request: Request) throws -> Response {
        let context = try pages.editor(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let app = try registeredAndroidApp(try request.parameter("packageName"), in: environment)
        let confirmation = Confirmation(
            title: "Remove \(app.packageName)",
            lead: "\(environment.name) stops recognizing this app:",
            consequences: [
                "its Play Integrity verdicts report packageNotRegistered, so genuine installs read as rejected;",
                "a copy re-signed with someone else's key is no longer told apart by its certificate;",
                "under attack mode, its installs are no longer asked for a verdict.",
            ],
            action: "/environments/\(environment.id)/apps/android/\(URLEncoding.percentEncode(app.packageName))/remove",
            button: "Remove app", cancel: "/environments/\(environment.id)/apps")
        return pages.confirmPage(confirmation, in: environment, tab: "apps", context: context)
    }

    func removeAndroidApp(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let id = try request.parameter("environmentId")
        let packageName = try request.parameter("packageName")
        _ = try environments.removeAndroidApp(packageName, from: id, actor: context.actor)
        return try pages.done(context, to: "/environments/\(id)/apps", flash: "Removed \(packageName).")
    }

    func registeredAndroidApp(_ packageName: String, in environment: Environment) throws -> AndroidApp {
        guard let app = environment.androidApps.first(where: { $0.packageName == packageName }) else {
            throw DomainError.notFound("\(packageName) is not registered in \(environment.name)")
        }
        return app
    }

    func androidDigestCount(_ app: AndroidApp?) -> String {
        Wording.count(app?.certificateDigests.count ?? 0, "certificate digest", "certificate digests", zero: "no")
    }
}
