import Gatehouse
import HTTP
import Mustache

/// Adding, editing and removing an environment's Android apps. The whole `androidApps` array (the others as stored,
/// this one as typed, last) goes through `EnvironmentPatch.parse`, so the form obeys the API's rules to the letter.
extension Dashboard {
    func addAndroidApp(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try editor(request, form: form)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let input = AndroidAppInput(form: form)
        let action = "/environments/\(environment.id)/apps/android"
        switch validateAndroidApp(input, in: environment, replacing: nil) {
        case .failure(let error):
            let values = input.values(action: action, submit: "Add app", error: error, index: environment.androidApps.count)
            return environmentAppsView(context, environment, values: ["android": values, "problem": Self.problem("android", "the new Android app")], status: 422)
        case .success(let app):
            var patch = EnvironmentPatch()
            patch.androidApps = .set(environment.androidApps + [app])
            _ = try services.environments.patch(environment.id, with: patch, actor: context.actor)
            return try done(context, to: "/environments/\(environment.id)/apps", flash: "Registered \(app.packageName) with \(androidDigestCount(app)).")
        }
    }

    func editAndroidAppPage(_ request: Request) throws -> Response {
        let context = try self.context(request)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let app = try registeredAndroidApp(try request.parameter("packageName"), in: environment)
        return editAndroidAppView(context, environment, app: app, input: AndroidAppInput(app: app), error: nil, status: 200)
    }

    func editAndroidAppView(_ context: DashboardContext, _ environment: Environment, app: AndroidApp, input: AndroidAppInput,
                            error: ValidationError?, status: Int) -> Response {
        let base = "/environments/\(environment.id)/apps/android/\(EnvironmentURL.segment(app.packageName))"
        var data = environmentHead(environment, tab: "apps")
        data["app"] = [
            "packageName": .string(app.packageName),
            "digests": .array(app.certificateDigests.map { .string(CertificateDigest.format($0)) }),
            "outsidePlay": .bool(app.outsidePlay),
            "removeURL": .string(base + "/remove"),
        ]
        data["android"] = input.values(action: base, submit: "Save changes", error: error, index: environment.androidApps.count - 1)
        return views.page("pages/environment-android-app", title: "\(app.packageName) · \(environment.name)", data, context: context, status: status, section: "environments")
    }

    /// POST /environments/{id}/apps/android/{packageName}: replaces that app (its package name may change too).
    func updateAndroidApp(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try editor(request, form: form)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let app = try registeredAndroidApp(try request.parameter("packageName"), in: environment)
        let input = AndroidAppInput(form: form)
        switch validateAndroidApp(input, in: environment, replacing: app.packageName) {
        case .failure(let error):
            return editAndroidAppView(context, environment, app: app, input: input, error: error, status: 422)
        case .success(let changed):
            var patch = EnvironmentPatch()
            patch.androidApps = .set(environment.androidApps.map { $0.packageName == app.packageName ? changed : $0 })
            _ = try services.environments.patch(environment.id, with: patch, actor: context.actor)
            return try done(context, to: "/environments/\(environment.id)/apps", flash: "Saved \(changed.packageName) with \(androidDigestCount(changed)).")
        }
    }

    func removeAndroidAppPage(_ request: Request) throws -> Response {
        let context = try self.context(request)
        try requireEditorForConfirmation(context)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let app = try registeredAndroidApp(try request.parameter("packageName"), in: environment)
        var data = environmentHead(environment, tab: "apps")
        data["confirm"] = [
            "heading": .string("Remove \(app.packageName)?"),
            "lead": .string("\(environment.name) stops recognizing this app:"),
            "consequences": [
                "its Play Integrity verdicts report packageNotRegistered, so genuine installs read as rejected;",
                "a copy re-signed with someone else's key is no longer told apart by its certificate;",
                "under attack mode, its installs are no longer asked for a verdict.",
            ],
            "action": .string("/environments/\(environment.id)/apps/android/\(EnvironmentURL.segment(app.packageName))/remove"),
            "button": "Remove app",
            "cancel": .string("/environments/\(environment.id)/apps"),
        ]
        return views.page("pages/environment-confirm", title: "Remove \(app.packageName)", data, context: context, section: "environments")
    }

    func removeAndroidApp(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try editor(request, form: form)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let app = try registeredAndroidApp(try request.parameter("packageName"), in: environment)
        var patch = EnvironmentPatch()
        patch.androidApps = .set(environment.androidApps.filter { $0.packageName != app.packageName })
        _ = try services.environments.patch(environment.id, with: patch, actor: context.actor)
        return try done(context, to: "/environments/\(environment.id)/apps", flash: "Removed \(app.packageName).")
    }

    /// Validates the typed app as the last element of `androidApps` (after every other registered app, minus the one
    /// being replaced), so its errors sit at `/androidApps/{count - 1}` and a duplicate is reported on it.
    func validateAndroidApp(_ input: AndroidAppInput, in environment: Environment, replacing: String?) -> Result<AndroidApp, ValidationError> {
        let stored = environment.json["androidApps"]?.array ?? []
        var list = zip(environment.androidApps, stored).filter { $0.0.packageName != replacing }.map(\.1)
        list.append(input.json)
        do {
            let patch = try EnvironmentPatch.parse(.object([.init("androidApps", .array(list))]))
            guard case .set(let apps) = patch.androidApps, let app = apps.last else {
                return .failure(ValidationError("/androidApps", "could not be read"))
            }
            return .success(app)
        } catch {
            return .failure(error)
        }
    }

    func registeredAndroidApp(_ packageName: String, in environment: Environment) throws -> AndroidApp {
        guard let app = environment.androidApps.first(where: { $0.packageName == packageName }) else {
            throw DomainError.notFound("\(packageName) is not registered in \(environment.name)")
        }
        return app
    }

    func androidDigestCount(_ app: AndroidApp) -> String {
        EnvironmentTime.count(app.certificateDigests.count, "certificate digest", "certificate digests")
    }
}
