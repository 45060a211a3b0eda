import Foundation
import Gatehouse
import HTTP
import JSON
import Mustache

/// The Apps tab: Android apps, Play Integrity credentials and Apple app ids of one environment, and the Apple forms.
/// Every change becomes the `androidApps` / `appleAppIds` / `playIntegrity` member of a merge patch, validated by
/// `EnvironmentPatch.parse` exactly as the Management API does.
extension Dashboard {
    func environmentAppsPage(_ request: Request) throws -> Response {
        let context = try self.context(request)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        return environmentAppsView(context, environment, values: [:], status: 200)
    }

    /// The Apps tab. `values` carries the state of the form that failed (`android`, `apple`, `serviceAccount`,
    /// `local`); the other forms start empty.
    func environmentAppsView(_ context: DashboardContext, _ environment: Environment, values: [String: MustacheValue], status: Int) -> Response {
        let base = "/environments/\(environment.id)"
        var data = environmentHead(environment, tab: "apps")
        data["androidApps"] = .array(environment.androidApps.map { app in
            let encoded = EnvironmentURL.segment(app.packageName)
            return [
                "packageName": .string(app.packageName),
                "digests": .array(app.certificateDigests.map { ["halves": Self.halves(CertificateDigest.format($0))] }),
                "noDigests": .bool(app.certificateDigests.isEmpty),
                "outsidePlay": .bool(app.outsidePlay),
                "editURL": .string("\(base)/apps/android/\(encoded)"),
                "removeURL": .string("\(base)/apps/android/\(encoded)/remove"),
            ]
        })
        // Keys registered per app id and the last verified assertion; the page still renders when they cannot be read.
        let keyCounts = (try? AttestedKeyCounts(store: services.store).perApp(environmentID: environment.id)) ?? [:]
        data["appleAppIds"] = .array(environment.appleAppIDs.map { id in
            let keys = keyCounts[id] ?? AppKeyCount(appID: id)
            return [
                "productionKeys": .string(String(keys.production)),
                "developmentKeys": .string(String(keys.development)),
                "lastAssertion": keys.lastAssertionAt.map(Self.time) ?? .null,
                "appId": .string(id),
                "teamId": .string(AppleAppID.teamID(id)),
                "bundleId": .string(AppleAppID.bundleID(id)),
                "rpIdHash": Self.halves(AppleAppID.rpIDHash(id)),
                "removeURL": .string("\(base)/apps/apple/\(EnvironmentURL.segment(id))/remove"),
            ]
        })
        data["hasAndroidApps"] = .bool(!environment.androidApps.isEmpty)
        data["hasAppleAppIds"] = .bool(!environment.appleAppIDs.isEmpty)
        let play = environment.playIntegrity
        data["play"] = [
            "serviceAccountSet": .bool(play.serviceAccountSet),
            "clientEmail": play.serviceAccountEmail.map { .string($0) } ?? .null,
            "projectId": play.serviceAccountProject.map { .string($0) } ?? .null,
            "localSet": .bool(play.localSet),
            "verificationKeySHA256": play.localVerificationKeySHA256.map { .string($0) } ?? .null,
            "noneSet": .bool(!play.serviceAccountSet && !play.localSet),
        ]
        data["android"] = AndroidAppInput().values(action: "\(base)/apps/android", submit: "Add app", error: nil, index: 0)
        for (key, value) in values { data[key] = value }
        return views.page("pages/environment-apps", title: "Apps · \(environment.name)", data, context: context, status: status, section: "environments")
    }

    /// The notice at the top of a re-rendered Apps tab, linking to the section whose form needs a fix.
    static func problem(_ anchor: String, _ what: String) -> MustacheValue {
        ["anchor": .string(anchor), "text": .string("Not saved: \(what) needs a fix, see below.")]
    }

    /// A long digest in two halves (after its middle colon, or at its middle), so it wraps between them rather than
    /// inside a byte; the halves sit in inline-blocks and copy as one string.
    static func halves(_ text: String) -> MustacheValue {
        let middle = text.count / 2
        let cut = text.firstIndex(of: ":").map { _ in
            text.index(text.startIndex, offsetBy: min(text.count, (middle / 3 + 1) * 3))
        } ?? text.index(text.startIndex, offsetBy: middle)
        return [.string(String(text[..<cut])), .string(String(text[cut...]))]
    }

    func addAppleAppID(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try editor(request, form: form)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let appID = (form["appId"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let list: [JSON] = environment.appleAppIDs.map { .string($0) } + [.string(appID)]
        let patch: EnvironmentPatch
        do {
            patch = try EnvironmentPatch.parse(.object([.init("appleAppIds", .array(list))]))
        } catch {
            let pointer = "/appleAppIds/\(list.count - 1)"
            let message = error.errors.first { $0.pointer == pointer }?.message ?? error.errors.first?.message ?? "is not valid"
            let shown = message.hasPrefix("duplicates") ? "is already registered in this environment" : message
            return environmentAppsView(context, environment, values: [
                "apple": ["appId": .string(appID), "error": .string(shown)], "problem": Self.problem("apple", "the app id"),
            ], status: 422)
        }
        _ = try services.environments.patch(environment.id, with: patch, actor: context.actor)
        return try done(context, to: "/environments/\(environment.id)/apps#apple",
                        flash: "Registered \(appID): App Attest keys of this app now verify here (rpId hash \(AppleAppID.rpIDHash(appID).prefix(12))…).")
    }

    func removeAppleAppIDPage(_ request: Request) throws -> Response {
        let context = try self.context(request)
        try requireEditorForConfirmation(context)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let appID = try request.parameter("appId")
        guard environment.appleAppIDs.contains(appID) else { throw DomainError.notFound("\(appID) is not registered in \(environment.name)") }
        var data = environmentHead(environment, tab: "apps")
        data["confirm"] = [
            "heading": .string("Remove \(appID)?"),
            "lead": .string("\(environment.name) stops recognizing this app id:"),
            "consequences": [
                "new App Attest registrations of the app are refused, and assertions by keys it registered no longer verify;",
                "under attack mode, its installs are no longer asked for an attestation.",
            ],
            "action": .string("/environments/\(environment.id)/apps/apple/\(EnvironmentURL.segment(appID))/remove"),
            "button": "Remove app id",
            "cancel": .string("/environments/\(environment.id)/apps#apple"),
        ]
        return views.page("pages/environment-confirm", title: "Remove \(appID)", data, context: context, section: "environments")
    }

    func removeAppleAppID(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try editor(request, form: form)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let appID = try request.parameter("appId")
        guard environment.appleAppIDs.contains(appID) else { throw DomainError.notFound("\(appID) is not registered in \(environment.name)") }
        var patch = EnvironmentPatch()
        patch.appleAppIDs = .set(environment.appleAppIDs.filter { $0 != appID })
        _ = try services.environments.patch(environment.id, with: patch, actor: context.actor)
        return try done(context, to: "/environments/\(environment.id)/apps#apple", flash: "Removed \(appID).")
    }
}

/// Percent-encoding of one path segment for links (package names and app ids are plain, but stay safe).
enum EnvironmentURL {
    static func segment(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }
}
