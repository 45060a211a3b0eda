import Attestation
import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// The Apps tab's App Attest policy and DeviceCheck key (docs/device-api.md "App Attest in depth"): the policy's knobs as a
/// plain form, the key write-only (never echoed, not even on errors), and a refresh pass now. Every change goes
/// through `EnvironmentPatch.parse`, exactly as the Management API's.
extension AppsController {
    /// The categories the form offers, in the order shown: (name, label).
    static let categoryChoices: [(name: String, label: String)] = [
        ("appStore", "App Store"), ("testFlight", "TestFlight"), ("development", "Development (run from Xcode)"),
        ("enterprise", "Enterprise"), ("developerID", "Developer ID"), ("localSigning", "Local signing"),
    ]

    /// The template's values of the App Attest section: the policy (or the values of a form that failed) and the key.
    func appAttestValues(_ environment: Environment, form: [String: String]? = nil, errors: [String: String] = [:]) -> [String: MustacheValue] {
        let policy = environment.appAttest.policy
        let chosen = policy.validationCategories.map { Set($0.map(\.label)) } ?? []
        let categories: [MustacheValue] = Self.categoryChoices.map { choice in
            let checked = form.map { $0["category-" + choice.name] != nil } ?? chosen.contains(choice.name)
            return ["name": .string(choice.name), "label": .string(choice.label), "checked": .bool(checked)]
        }
        let others = chosen.subtracting(Self.categoryChoices.map(\.name)).sorted()
        let state = (try? refresher.state(environmentID: environment.id)) ?? AppleReceiptRefreshState()
        var values: [String: MustacheValue] = [
            "categories": .array(categories),
            "otherCategories": .string(form?["otherCategories"] ?? others.joined(separator: ", ")),
            "anyCategory": .bool(policy.validationCategories == nil),
            "requireCategory": .bool(form.map { $0["requireValidationCategory"] != nil } ?? policy.requireValidationCategory),
            "minimumBundleVersion": .string(form?["minimumBundleVersion"] ?? policy.minimumBundleVersion ?? ""),
            "riskMetricAbove": .string(form?["riskMetricAbove"] ?? policy.riskMetricAbove.map(String.init) ?? ""),
            "errors": .dictionary(errors.mapValues { .string($0) }),
            "lastPass": state.lastPassAt.map(Dates.value) ?? .null,
            "refused": state.refusedAt.map { _ in .string(state.refusedStatus.map(String.init) ?? "refused") } ?? .null,
        ]
        if let key = environment.appAttest.deviceCheckKey {
            values["key"] = ["keyId": .string(key.keyID), "teamId": .string(key.teamID)]
        }
        return values
    }

    /// POST /environments/{id}/apps/app-attest-policy: the categories (none ticked: any), whether one is required,
    /// the lowest bundle version and the risk metric bound (empty: none).
    func setAppAttestPolicy(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        var categories: [JSON] = Self.categoryChoices.compactMap { form["category-" + $0.name] != nil ? .string($0.name) : nil }
        for other in (form["otherCategories"] ?? "").split(whereSeparator: { $0 == "," || $0 == " " }) {
            categories.append(Int64(other).map(JSON.int) ?? .string(String(other)))
        }
        let version = (form["minimumBundleVersion"] ?? "").trimmingCharacters(in: .whitespaces)
        let bound = (form["riskMetricAbove"] ?? "").trimmingCharacters(in: .whitespaces)
        let policy = JSON.object([
            .init("validationCategories", categories.isEmpty ? .null : .array(categories)),
            .init("requireValidationCategory", .bool(form["requireValidationCategory"] != nil)),
            .init("minimumBundleVersion", version.isEmpty ? .null : .string(version)),
            .init("riskMetricAbove", bound.isEmpty ? .null : (Int64(bound).map(JSON.int) ?? .string(bound))),
        ])
        let patch: EnvironmentPatch
        do {
            patch = try EnvironmentPatch.parse(.object([.init("appAttest", policy)]))
        } catch {
            var errors: [String: String] = [:]
            for e in error.errors {
                let field = e.pointer.split(separator: "/").dropFirst().first.map(String.init) ?? "policy"
                if errors[field] == nil { errors[field] = e.message }
            }
            return environmentAppsView(context, environment, values: [
                "appAttest": .dictionary(appAttestValues(environment, form: form.fields, errors: errors)), "problem": Self.problem("app-attest", "the App Attest policy"),
            ], status: 422)
        }
        _ = try environments.patch(environment.id, with: patch, actor: context.actor)
        return try pages.done(context, to: "/environments/\(environment.id)/apps", flash: "App Attest policy saved.")
    }

    /// POST /environments/{id}/app-attest/device-check-key: the key id, team id and the .p8 text (pasted or uploaded).
    func setDeviceCheckKey(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let keyID = (form["keyId"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let teamID = (form["teamId"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let privateKey = form.files["privateKeyFile"].map { String(decoding: $0, as: UTF8.self) } ?? form["privateKey"] ?? ""
        let key = JSON.object([.init("keyId", .string(keyID)), .init("teamId", .string(teamID)), .init("privateKey", .string(privateKey))])
        let patch: EnvironmentPatch
        do {
            patch = try EnvironmentPatch.parse(.object([.init("appAttest", .object([.init("deviceCheckKey", key)]))]))
        } catch {
            var errors: [String: String] = [:]
            for e in error.errors {
                let field = String(e.pointer.split(separator: "/").last ?? "privateKey")
                if errors[field] == nil { errors[field] = field == "privateKey" ? e.message + "; what you pasted is not shown again" : e.message }
            }
            // The identifiers are not secret and stay in the form; the private key is never sent back.
            var values = appAttestValues(environment)
            values["keyForm"] = ["keyId": .string(keyID), "teamId": .string(teamID), "errors": .dictionary(errors.mapValues { .string($0) })]
            return environmentAppsView(context, environment, values: [
                "appAttest": .dictionary(values), "problem": Self.problem("device-check", "the DeviceCheck key"),
            ], status: 422)
        }
        _ = try environments.patch(environment.id, with: patch, actor: context.actor)
        return try pages.done(context, to: "/environments/\(environment.id)/apps",
                              flash: "DeviceCheck key \(keyID) of team \(teamID) saved: receipts of active keys are refreshed with it.")
    }

    func removeDeviceCheckKeyPage(_ request: Request) throws -> Response {
        let context = try pages.editor(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        guard let key = environment.appAttest.deviceCheckKey else { throw DomainError.notFound("\(environment.name) has no DeviceCheck key") }
        let confirmation = Confirmation(
            title: "Remove the DeviceCheck key \(key.keyID)",
            lead: "Gatehouse erases the key of \(environment.name). It cannot be shown or restored: to set it again, upload the .p8 file again.",
            consequences: [
                "receipts are no longer refreshed at Apple, and no new risk metric comes;",
                "registrations and assertions are judged as before, with the metrics already known.",
            ],
            action: "/environments/\(environment.id)/app-attest/device-check-key/remove", button: "Remove key",
            cancel: "/environments/\(environment.id)/apps#device-check")
        return pages.confirmPage(confirmation, in: environment, tab: "apps", context: context)
    }

    func removeDeviceCheckKey(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        var patch = EnvironmentPatch()
        patch.deviceCheckKey = .remove
        _ = try environments.patch(environment.id, with: patch, actor: context.actor)
        return try pages.done(context, to: "/environments/\(environment.id)/apps", flash: "DeviceCheck key removed.")
    }

    /// POST /environments/{id}/app-attest/refresh-receipts: one pass now, its tally in the flash.
    func refreshReceiptsNow(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let tally = try refresher.refresh(environmentID: environment.id)
        let text = tally.tried == 0
            ? "No receipt to refresh: no key asserted in the last 30 days, or there is no DeviceCheck key Apple accepts."
            : "Refreshed \(tally.refreshed) of \(tally.tried) receipts (\(tally.unchanged) unchanged, \(tally.noData) without data at Apple, "
                + "\(tally.refused) refused, \(tally.failed) failed)."
        return try pages.done(context, to: "/environments/\(environment.id)/apps", flash: text,
                              tone: tally.refused + tally.failed > 0 ? .warning : .done)
    }
}
