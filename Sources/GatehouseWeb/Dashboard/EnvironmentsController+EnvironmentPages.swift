import Foundation
import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// One environment's overview: rename, change kind, the attack-mode switch, and deletion behind a typed confirmation.
/// Changes go through `EnvironmentPatch.parse`, the same validation as `PATCH /api/management/v1/environments/{id}`.
extension EnvironmentsController {
    func environmentOverviewPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        return try environmentOverviewView(context, environment, values: [:], status: 200)
    }

    func environmentOverviewView(_ context: DashboardContext, _ environment: Environment, values: [String: MustacheValue], status: Int) throws -> Response {
        let now = clock()
        let keys = try keys.list(environmentID: environment.id)
        let play = environment.playIntegrity
        var data = EnvironmentHead.values(environment, tab: "overview")
        data["createdAt"] = .string(Dates.display(environment.createdAt))
        data["updatedAt"] = .string(Dates.display(environment.updatedAt))
        data["androidCount"] = .string(Wording.count(environment.androidApps.count, "app", "apps", zero: "no"))
        data["appleCount"] = .string(Wording.count(environment.appleAppIDs.count, "app id", "app ids", zero: "no"))
        data["playSet"] = .bool(play.serviceAccountSet || play.localSet)
        data["activeKeys"] = .string(Wording.count(keys.filter { $0.isActive(at: now) }.count, "active key", "active keys", zero: "no"))
        let debug = try debugTokens.list(environmentID: environment.id).filter { $0.isActive(at: now) }.reversed().map(\.name)
        data["debugTokens"] = .string(Wording.count(debug.count, "active debug token", "active debug tokens", zero: "no"))
        data["debugInProduction"] = environment.kind == .production && !debug.isEmpty
            ? .string(debug.map { "“\($0)”" }.joined(separator: ", ")) : .null
        data["coverage"] = .array(attackCoverage(environment))
        let effect = attackEffect(environment, now: now)
        data["attackEffect"] = .array(effect)
        data["hasAttackEffect"] = .bool(!effect.isEmpty)
        data["receiptKeyId"] = (try? receiptKeys.currentKeyID()).flatMap { $0 }.map { .string($0) } ?? .null
        data["name"] = .string(environment.name)
        data["kindDevelopment"] = .bool(environment.kind == .development)
        for (key, value) in values { data[key] = value }
        return pages.page("pages/environment-overview", title: environment.name, data, context: context, status: status, section: "environments")
    }

    /// What attack mode asks of each platform, given what is set up (docs/device-api.md "Attack mode": a phone must bring
    /// a verified attestation where the environment can check one; a platform with nothing set up is left alone only
    /// for the apps registered on it, or when neither platform can be checked).
    func attackCoverage(_ environment: Environment) -> [MustacheValue] {
        let androidChecked = AssessService.couldProve(.android, environment)
        let iosChecked = AssessService.couldProve(.ios, environment)
        let android: MustacheValue
        if androidChecked {
            let names = environment.androidApps.map(\.packageName).joined(separator: ", ")
            android = ["platform": "Android", "checked": true, "text": .string("must bring a verified Play Integrity verdict (\(names)).")]
        } else {
            let why = environment.androidApps.isEmpty
                ? "no Android app is registered, so there is nothing to check a verdict against"
                : "neither a service account nor local keys are set, so no verdict can be decoded"
            let registered = environment.androidApps.map(\.packageName).joined(separator: ", ")
            android = ["platform": "Android", "checked": false,
                       "text": .string(Self.unchecked(why: why, registered: registered, claimedName: "Android", otherChecked: iosChecked))]
        }
        let ios: MustacheValue
        if iosChecked {
            ios = ["platform": "iOS", "checked": true, "text": .string("must bring a verified App Attest assertion (\(environment.appleAppIDs.joined(separator: ", "))).")]
        } else {
            ios = ["platform": "iOS", "checked": false,
                   "text": .string(Self.unchecked(why: "no app id is registered, so no App Attest key can be verified", registered: "",
                                                  claimedName: "iOS", otherChecked: androidChecked))]
        }
        return [android, ios]
    }

    /// The coverage line of a platform nothing checks: left alone, for its registered apps only when the other
    /// platform is checked (a request that claims this platform for any other app is challenged).
    static func unchecked(why: String, registered: String, claimedName: String, otherChecked: Bool) -> String {
        guard otherChecked else { return "left alone: \(why)." }
        let genuine = "a genuine install of an app registered here names its own platform"
        guard !registered.isEmpty else { return "\(why), so a request that says it is \(claimedName) is challenged: \(genuine)." }
        return "left alone for \(registered) (\(why)); a request that says it is \(claimedName) for any other app is challenged: \(genuine)."
    }

    /// POST /environments/{id}: the rename/kind form (`name`, `kind`) or the attack-mode switch (`attackMode` = on/off).
    func updateEnvironment(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        var members: [JSON.Member] = []
        if let name = form["name"] { members.append(.init("name", .string(name))) }
        if let kind = form["kind"] { members.append(.init("kind", .string(kind))) }
        if let mode = form["attackMode"] {
            members.append(.init("attackMode", mode == "on" ? .bool(true) : mode == "off" ? .bool(false) : .string(mode)))
        }
        let patch: EnvironmentPatch
        do {
            patch = try EnvironmentPatch.parse(.object(members))
        } catch {
            var values: [String: MustacheValue] = ["errors": fieldErrors(error)]
            if let name = form["name"] { values["name"] = .string(name) }
            if let kind = form["kind"] { values["kindDevelopment"] = .bool(kind == "development") }
            return try environmentOverviewView(context, environment, values: values, status: 422)
        }
        let updated = try environments.patch(environment.id, with: patch, actor: context.actor)
        let flash: String
        if let attackMode = patch.attackMode, patch.name == nil {
            flash = attackMode
                ? "Attack mode is on: installs that could have attested and did not are challenged until you turn it off."
                : "Attack mode is off: a phone without an attestation is scored on what it says again."
        } else {
            flash = "Saved \(updated.name) (\(updated.kind.rawValue))."
        }
        return try pages.done(context, to: "/environments/\(environment.id)", flash: flash)
    }

    func deleteEnvironmentPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        try pages.requireEditor(context)
        return deleteEnvironmentView(context, environment, typed: "", error: nil, status: 200)
    }

    func deleteEnvironmentView(_ context: DashboardContext, _ environment: Environment, typed: String, error: String?, status: Int) -> Response {
        let confirmation = Confirmation(
            title: "Delete \(environment.name)",
            lead: "This deletes the environment and everything registered in it, at once and for good:",
            consequences: [
                .string("its registered apps (\(environment.androidApps.count) Android, \(environment.appleAppIDs.count) Apple) stop being recognized;"),
                "its Play Integrity credentials are erased;",
                "every API key of the environment stops working, so apps and servers using them are refused.",
            ],
            action: "/environments/\(environment.id)/delete", button: "Delete environment", cancel: "/environments/\(environment.id)",
            more: [
                "note": "The audit log keeps its entries.",
                "typeName": ["expected": .string(environment.name), "value": .string(typed), "error": error.map { .string($0) } ?? .null],
            ])
        return pages.confirmPage(confirmation, in: environment, tab: "overview", context: context, status: status)
    }

    func deleteEnvironment(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let typed = form["confirmName"] ?? ""
        guard typed.trimmingCharacters(in: .whitespacesAndNewlines) == environment.name else {
            let error = typed.isEmpty ? "Type the environment's name to confirm." : "This is not the environment's name: type it exactly as shown above."
            return deleteEnvironmentView(context, environment, typed: typed, error: error, status: 422)
        }
        try environments.delete(environment.id, actor: context.actor)
        return try pages.done(context, to: "/environments", flash: "Deleted \(environment.name), with its apps, credentials and keys.")
    }
}
