import Attestation
import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// The Apps tab's Play Integrity policy (docs/device-api.md "The policy"): every knob on one plain form, explained in a
/// sentence, usable without JavaScript; saved through `EnvironmentPatch.parse` as the Management API's PATCH is; and
/// today's use of the quota (Pacific day).
extension AppsController {
    /// The template's values of the policy section: the policy (or the values of a form that failed) and today's use.
    func playPolicyValues(_ environment: Environment, form: [String: String]? = nil, errors: [String: String] = [:]) -> [String: MustacheValue] {
        let policy = environment.playIntegrity.policy
        func checked(_ name: String, _ value: Bool) -> MustacheValue { .bool(form.map { $0[name] != nil } ?? value) }
        let level = form?["deviceIntegrity"] ?? policy.deviceIntegrity.rawValue
        let activity = form?["maximumActivityLevel"] ?? "LEVEL_\(policy.maximumActivityLevel)"
        let protect = form?["playProtect"] ?? PlayIntegrityPolicy.playProtectOrder[policy.playProtect]
        let usage = try? environments.playIntegrityUsage(environment.id)
        return [
            "levels": .array([
                ("basic", "Basic", "MEETS_BASIC_INTEGRITY is enough: rooted or unlocked phones pass (a game, say)."),
                ("device", "Device", "MEETS_DEVICE_INTEGRITY: a genuine, unmodified Android device (the default)."),
                ("strong", "Strong", "MEETS_STRONG_INTEGRITY: hardware-backed keys and a recent security update (a bank, say); others are offered GET_STRONG_INTEGRITY."),
            ].map { ["value": .string($0.0), "label": .string($0.1), "hint": .string($0.2), "checked": .bool($0.0 == level)] }),
            "allowVirtual": checked("allowVirtual", policy.allowVirtual),
            "requireLicensed": checked("requireLicensed", policy.requireLicensed),
            "allowUnrecognizedVersion": checked("allowUnrecognizedVersion", policy.allowUnrecognizedVersion),
            "rejectTestingResponses": checked("rejectTestingResponses", policy.rejectsTestingResponses(inProduction: environment.kind == .production)),
            "accountActivity": checked("accountActivity", policy.refuseUnusualAccountActivity),
            "minimumSdkVersion": .string(form?["minimumSdkVersion"] ?? policy.minimumSdkVersion.map(String.init) ?? ""),
            "versionCodes": .array(environment.androidApps.map { app in
                [
                    "packageName": .string(app.packageName),
                    "field": .string("versionCode-" + app.packageName),
                    "value": .string(form?["versionCode-" + app.packageName] ?? policy.minimumVersionCode[app.packageName].map(String.init) ?? ""),
                    "error": errors["minimumVersionCode/" + app.packageName].map(MustacheValue.string) ?? .null,
                ]
            }),
            "activityLevels": .array((1...4).map { n in
                ["value": .string("LEVEL_\(n)"), "selected": .bool(activity == "LEVEL_\(n)")]
            }),
            "protectLevels": .array(PlayIntegrityPolicy.playProtectOrder.map { ["value": .string($0), "selected": .bool($0 == protect)] }),
            "apps": .array(PlayIntegrityPolicy.appsDetectedValues.map { value in
                ["value": .string(value), "checked": checked("apps-" + value, policy.appsDetected.contains(value))]
            }),
            "errors": .dictionary(errors.mapValues { .string($0) }),
            "day": .string(usage?.day.text ?? ""),
            "tokens": .array((usage?.tokens ?? [:]).sorted { $0.key < $1.key }.map { ["packageName": .string($0.key), "count": .string(Wording.count($0.value, "token"))] }),
            "googleDecodes": .string(Wording.number(usage?.googleDecodes ?? 0)),
            "dailyQuota": .string(Wording.number(environment.playIntegrity.dailyQuota)),
        ]
    }

    /// POST /environments/{id}/play-integrity/policy: the whole policy from the form.
    func setPlayIntegrityPolicy(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        func number(_ name: String) -> JSON {
            let text = (form[name] ?? "").trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? .null : (Int64(text).map(JSON.int) ?? .string(text))
        }
        var codes: [JSON.Member] = []
        for app in environment.androidApps {
            let value = number("versionCode-" + app.packageName)
            if !value.isNull { codes.append(.init(app.packageName, value)) }
        }
        let policy = JSON.object([
            .init("deviceIntegrity", .string(form["deviceIntegrity"] ?? "")),
            .init("allowVirtual", .bool(form["allowVirtual"] != nil)),
            .init("requireLicensed", .bool(form["requireLicensed"] != nil)),
            .init("allowUnrecognizedVersion", .bool(form["allowUnrecognizedVersion"] != nil)),
            .init("minimumVersionCode", .object(codes)),
            .init("minimumSdkVersion", number("minimumSdkVersion")),
            .init("maximumActivityLevel", .string(form["maximumActivityLevel"] ?? "")),
            .init("playProtect", .string(form["playProtect"] ?? "")),
            .init("appsDetected", .array(PlayIntegrityPolicy.appsDetectedValues.filter { form["apps-" + $0] != nil }.map(JSON.string))),
            .init("rejectTestingResponses", .bool(form["rejectTestingResponses"] != nil)),
            .init("accountActivity", .bool(form["accountActivity"] != nil)),
        ])
        let patch: EnvironmentPatch
        do {
            patch = try EnvironmentPatch.parse(.object([.init("playIntegrity", .object([.init("policy", policy)]))]))
        } catch {
            let errors = Self.fieldErrors(error, under: "/playIntegrity/policy/")
            return environmentAppsView(context, environment, values: [
                "playPolicy": .dictionary(playPolicyValues(environment, form: form.fields, errors: errors)),
                "problem": Self.problem("play-policy", "the Play Integrity policy"),
            ], status: 422)
        }
        _ = try environments.patch(environment.id, with: patch, actor: context.actor)
        return try pages.done(context, to: "/environments/\(environment.id)/apps", flash: "Play Integrity policy saved.")
    }
}
