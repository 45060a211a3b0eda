import Attestation
import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// The Apps tab's Key Attestation policy (docs/device-api.md "Android Key Attestation", "The policy"): every member on
/// one plain form, usable without JavaScript, saved through `EnvironmentPatch.parse` as the Management API's PATCH is.
extension AppsController {
    /// The template's values of the policy section: the policy, or the values of a form that failed with its errors
    /// by member.
    func keyAttestationValues(_ environment: Environment, form: [String: String]? = nil, errors: [String: String] = [:]) -> [String: MustacheValue] {
        let policy = environment.keyAttestation
        func checked(_ name: String, _ value: Bool) -> MustacheValue { .bool(form.map { $0[name] != nil } ?? value) }
        let level = form?["securityLevel"] ?? policy.securityLevel.name
        let revocation = form?["revocation"] ?? policy.revocation.rawValue
        let patch = policy.minimumPatchLevel.map(KeyAttestationPolicy.patchLevelText)
        return [
            "enabled": checked("enabled", policy.enabled),
            "requireLocked": checked("requireLocked", policy.requireLocked),
            "levels": .array([
                ("tee", "Trusted execution environment", "The key lives in the phone's TEE: every phone with hardware attestation."),
                ("strongbox", "StrongBox", "The key lives in a separate secure element (Pixel 3 and later, some others)."),
            ].map { ["value": .string($0.0), "label": .string($0.1), "hint": .string($0.2), "checked": .bool($0.0 == level)] }),
            "revocations": .array([
                ("refuse", "Refuse", "A key whose chain holds a certificate Google revoked is rejected (certificateRevoked)."),
                ("observe", "Observe", "Only observed.revocation says it."),
            ].map { ["value": .string($0.0), "label": .string($0.1), "hint": .string($0.2), "checked": .bool($0.0 == revocation)] }),
            "bootKeys": .string(form?["bootKeys"] ?? policy.bootKeys.joined(separator: "\n")),
            "hasBootKeys": .bool(!policy.bootKeys.isEmpty),
            "bootKeyList": .array(policy.bootKeys.map { key in
                ["value": .string(key), "name": PublishedBootKeys.named(key).map { .string($0.name) } ?? .string("not a published key")]
            }),
            "minimumPatchLevel": .string(form?["minimumPatchLevel"] ?? patch ?? ""),
            "versionCodes": .array(environment.androidApps.map { app in
                [
                    "packageName": .string(app.packageName),
                    "field": .string("keyVersionCode-" + app.packageName),
                    "value": .string(form?["keyVersionCode-" + app.packageName] ?? policy.minimumVersionCode[app.packageName].map(String.init) ?? ""),
                    "error": errors["minimumVersionCode/" + app.packageName].map(MustacheValue.string) ?? .null,
                ]
            }),
            "errors": .dictionary(errors.mapValues { .string($0) }),
        ]
    }

    /// POST /environments/{id}/key-attestation/policy: the whole policy from the form.
    func setKeyAttestationPolicy(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        func text(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
        var codes: [JSON.Member] = []
        for app in environment.androidApps {
            let value = text("keyVersionCode-" + app.packageName)
            if !value.isEmpty { codes.append(.init(app.packageName, Int64(value).map(JSON.int) ?? .string(value))) }
        }
        let bootKeys = text("bootKeys").split(whereSeparator: { $0.isWhitespace || $0 == "," }).map { JSON.string(String($0)) }
        let policy = JSON.object([
            .init("enabled", .bool(form["enabled"] != nil)),
            .init("securityLevel", .string(form["securityLevel"] ?? "")),
            .init("bootKeys", .array(bootKeys)),
            .init("requireLocked", .bool(form["requireLocked"] != nil)),
            .init("minimumPatchLevel", text("minimumPatchLevel").isEmpty ? .null : .string(text("minimumPatchLevel"))),
            .init("minimumVersionCode", .object(codes)),
            .init("revocation", .string(form["revocation"] ?? "")),
        ])
        let patch: EnvironmentPatch
        do {
            patch = try EnvironmentPatch.parse(.object([.init("keyAttestation", policy)]))
        } catch {
            let errors = Self.fieldErrors(error, under: "/keyAttestation/", lists: ["bootKeys"])
            return environmentAppsView(context, environment, values: [
                "keyAttestation": .dictionary(keyAttestationValues(environment, form: form.fields, errors: errors)),
                "problem": Self.problem("key-attestation", "the Key Attestation policy"),
            ], status: 422)
        }
        _ = try environments.patch(environment.id, with: patch, actor: context.actor)
        return try pages.done(context, to: "/environments/\(environment.id)/apps", flash: "Key Attestation policy saved.")
    }
}
