import Foundation
import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// The Apps tab: Android apps, Play Integrity credentials, Apple app ids, the App Attest policy and DeviceCheck key of
/// one environment.
/// Each app change is one domain operation on that app; credentials go through `EnvironmentPatch.parse`, exactly
/// as the Management API's.
struct AppsController: Sendable {
    let pages: Pages
    let environments: Environments
    let keyCounts: AttestedKeyCounts
    /// Tries local keys on the recent failures when they are saved.
    let keyCheck: PlayIntegrityKeyCheck
    /// App Attest receipts: the state shown, and a pass now.
    let refresher: AppleReceiptRefresher

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/environments/{environmentId}/apps", pages.html(environmentAppsPage))
        add("POST", "/environments/{environmentId}/apps/android", pages.html(addAndroidApp))
        add("GET", "/environments/{environmentId}/apps/android/{packageName}", pages.html(editAndroidAppPage))
        add("POST", "/environments/{environmentId}/apps/android/{packageName}", pages.html(updateAndroidApp))
        add("GET", "/environments/{environmentId}/apps/android/{packageName}/remove", pages.html(removeAndroidAppPage))
        add("POST", "/environments/{environmentId}/apps/android/{packageName}/remove", pages.html(removeAndroidApp))
        add("POST", "/environments/{environmentId}/apps/apple", pages.html(addAppleAppID))
        add("GET", "/environments/{environmentId}/apps/apple/{appId}/remove", pages.html(removeAppleAppIDPage))
        add("POST", "/environments/{environmentId}/apps/apple/{appId}/remove", pages.html(removeAppleAppID))
        add("POST", "/environments/{environmentId}/apps/app-attest-policy", pages.html(setAppAttestPolicy))
        add("POST", "/environments/{environmentId}/app-attest/device-check-key", pages.html(setDeviceCheckKey))
        add("GET", "/environments/{environmentId}/app-attest/device-check-key/remove", pages.html(removeDeviceCheckKeyPage))
        add("POST", "/environments/{environmentId}/app-attest/device-check-key/remove", pages.html(removeDeviceCheckKey))
        add("POST", "/environments/{environmentId}/app-attest/refresh-receipts", pages.html(refreshReceiptsNow))
        add("POST", "/environments/{environmentId}/play-integrity/policy", pages.html(setPlayIntegrityPolicy))
        add("POST", "/environments/{environmentId}/key-attestation/policy", pages.html(setKeyAttestationPolicy))
        add("POST", "/environments/{environmentId}/play-integrity/service-account", pages.html(setServiceAccount))
        add("POST", "/environments/{environmentId}/play-integrity/local", pages.html(setLocalKeys))
        add("GET", "/environments/{environmentId}/play-integrity/{credential}/remove", pages.html(removeCredentialPage))
        add("POST", "/environments/{environmentId}/play-integrity/{credential}/remove", pages.html(removeCredential))
    }

    func environmentAppsPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        return environmentAppsView(context, environment, values: [:], status: 200)
    }

    /// The Apps tab. `values` carries the state of the form that failed (`android`, `apple`, `serviceAccount`,
    /// `local`); the other forms start empty.
    func environmentAppsView(_ context: DashboardContext, _ environment: Environment, values: [String: MustacheValue], status: Int) -> Response {
        let base = "/environments/\(environment.id)"
        var data = EnvironmentHead.values(environment, tab: "apps")
        // Android keys a key attestation stored per package; the page still renders when they cannot be read.
        let androidKeys = (try? keyCounts.perPackage(environmentID: environment.id)) ?? [:]
        data["androidApps"] = .array(environment.androidApps.map { app in
            let encoded = URLEncoding.percentEncode(app.packageName)
            return [
                "attestedKeys": .string(Wording.number(androidKeys[app.packageName] ?? 0)),
                "packageName": .string(app.packageName),
                "digests": .array(app.certificateDigests.map { ["halves": Self.halves(CertificateDigest.format($0))] }),
                "noDigests": .bool(app.certificateDigests.isEmpty),
                "outsidePlay": .bool(app.outsidePlay),
                "editURL": .string("\(base)/apps/android/\(encoded)"),
                "removeURL": .string("\(base)/apps/android/\(encoded)/remove"),
            ]
        })
        // Keys registered per app id and the last verified assertion; the page still renders when they cannot be read.
        let keyCounts = (try? keyCounts.perApp(environmentID: environment.id)) ?? [:]
        data["appleAppIds"] = .array(environment.appleAppIDs.map { id in
            let keys = keyCounts[id] ?? AppKeyCount(appID: id)
            return [
                "productionKeys": .string(String(keys.production)),
                "developmentKeys": .string(String(keys.development)),
                "lastAssertion": keys.lastAssertionAt.map(Dates.value) ?? .null,
                "appId": .string(id),
                "teamId": .string(AppleAppID.teamID(id)),
                "bundleId": .string(AppleAppID.bundleID(id)),
                "rpIdHash": Self.halves(AppleAppID.rpIDHash(id)),
                "removeURL": .string("\(base)/apps/apple/\(URLEncoding.percentEncode(id))/remove"),
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
            "decodesToday": .string(Wording.number((try? environments.googleDecodesToday(environment.id)) ?? 0)),
            "dailyQuota": .string(Wording.number(play.dailyQuota)),
        ]
        data["appAttest"] = .dictionary(appAttestValues(environment))
        data["playPolicy"] = .dictionary(playPolicyValues(environment))
        data["keyAttestation"] = .dictionary(keyAttestationValues(environment))
        data["android"] = AndroidAppInput().values(action: "\(base)/apps/android", submit: "Add app", error: nil)
        for (key, value) in values { data[key] = value }
        return pages.page("pages/environment-apps", title: "Apps · \(environment.name)", data, context: context, status: status, section: "environments")
    }

    /// The notice at the top of a re-rendered Apps tab, linking to the section whose form needs a fix.
    static func problem(_ anchor: String, _ what: String) -> MustacheValue {
        ["anchor": .string(anchor), "text": .string("Not saved: \(what) needs a fix, see below.")]
    }

    /// A policy form's errors by field: each problem's pointer below `prefix` (`minimumVersionCode/com.example.app`),
    /// a list in `lists` named by the list alone (`bootKeys`, not `bootKeys/2`); the first message of each field.
    static func fieldErrors(_ error: ValidationError, under prefix: String, lists: Set<String> = []) -> [String: String] {
        var errors: [String: String] = [:]
        for e in error.errors {
            var field = e.pointer.hasPrefix(prefix) ? String(e.pointer.dropFirst(prefix.count)) : "policy"
            if let list = field.split(separator: "/").first.map(String.init), lists.contains(list) { field = list }
            if errors[field] == nil { errors[field] = e.message }
        }
        return errors
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
        let context = try pages.editor(request, form: form)
        let id = try request.parameter("environmentId")
        let appID = (form["appId"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            _ = try environments.addAppleAppID(appID, to: id, actor: context.actor)
        } catch let error as ValidationError {
            let message = error.errors.first?.message ?? "is not valid"
            let shown = message.hasPrefix("duplicates") ? "is already registered in this environment" : message
            return environmentAppsView(context, try environments.get(id), values: [
                "apple": ["appId": .string(appID), "error": .string(shown)], "problem": Self.problem("apple", "the app id"),
            ], status: 422)
        }
        return try pages.done(context, to: "/environments/\(id)/apps",
                        flash: "Registered \(appID): App Attest keys of this app now verify here (rpId hash \(AppleAppID.rpIDHash(appID).prefix(12))…).")
    }

    func removeAppleAppIDPage(_ request: Request) throws -> Response {
        let context = try pages.editor(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let appID = try request.parameter("appId")
        guard environment.appleAppIDs.contains(appID) else { throw DomainError.notFound("\(appID) is not registered in \(environment.name)") }
        let confirmation = Confirmation(
            title: "Remove \(appID)", lead: "\(environment.name) stops recognizing this app id:",
            consequences: [
                "new App Attest registrations of the app are refused, and assertions by keys it registered no longer verify;",
                "under attack mode, its installs are no longer asked for an attestation.",
            ],
            action: "/environments/\(environment.id)/apps/apple/\(URLEncoding.percentEncode(appID))/remove",
            button: "Remove app id", cancel: "/environments/\(environment.id)/apps#apple")
        return pages.confirmPage(confirmation, in: environment, tab: "apps", context: context)
    }

    func removeAppleAppID(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let id = try request.parameter("environmentId")
        let appID = try request.parameter("appId")
        _ = try environments.removeAppleAppID(appID, from: id, actor: context.actor)
        return try pages.done(context, to: "/environments/\(id)/apps", flash: "Removed \(appID).")
    }
}
