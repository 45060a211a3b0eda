import Foundation
import Gatehouse
import HTTP
import JSON
import Mustache

/// One environment's overview: rename, change kind, the attack-mode switch, and deletion behind a typed confirmation.
/// Changes go through `EnvironmentPatch.parse`, the same validation as `PATCH /api/management/v1/environments/{id}`.
extension Dashboard {
    func environmentOverviewPage(_ request: Request) throws -> Response {
        let context = try self.context(request)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        return try environmentOverviewView(context, environment, values: [:], status: 200)
    }

    func environmentOverviewView(_ context: DashboardContext, _ environment: Environment, values: [String: MustacheValue], status: Int) throws -> Response {
        let now = services.store.clock()
        let keys = try services.keys.list(environmentID: environment.id)
        let play = environment.playIntegrity
        var data = environmentHead(environment, tab: "overview")
        data["createdAt"] = .string(EnvironmentTime.display(environment.createdAt))
        data["updatedAt"] = .string(EnvironmentTime.display(environment.updatedAt))
        data["androidCount"] = .string(EnvironmentTime.count(environment.androidApps.count, "app", "apps"))
        data["appleCount"] = .string(EnvironmentTime.count(environment.appleAppIDs.count, "app id", "app ids"))
        data["playSet"] = .bool(play.serviceAccountSet || play.localSet)
        data["activeKeys"] = .string(EnvironmentTime.count(keys.filter { $0.isActive(at: now) }.count, "active key", "active keys"))
        data["coverage"] = .array(attackCoverage(environment))
        data["name"] = .string(environment.name)
        data["kindDevelopment"] = .bool(environment.kind == .development)
        for (key, value) in values { data[key] = value }
        return views.page("pages/environment-overview", title: environment.name, data, context: context, status: status, section: "environments")
    }

    /// What attack mode asks of each platform, given what is set up (seed 003: a phone must bring a verified
    /// attestation where the environment can check one; an app with nothing set up is left alone).
    func attackCoverage(_ environment: Environment) -> [MustacheValue] {
        let play = environment.playIntegrity
        let playSet = play.serviceAccountSet || play.localSet
        let android: MustacheValue
        if playSet && !environment.androidApps.isEmpty {
            let names = environment.androidApps.map(\.packageName).joined(separator: ", ")
            android = ["platform": "Android", "checked": true, "text": .string("must bring a verified Play Integrity verdict (\(names)).")]
        } else if environment.androidApps.isEmpty {
            android = ["platform": "Android", "checked": false, "text": "left alone: no Android app is registered, so there is nothing to check a verdict against."]
        } else {
            android = ["platform": "Android", "checked": false, "text": "left alone: neither a service account nor local keys are set, so no verdict can be decoded."]
        }
        let ios: MustacheValue
        if environment.appleAppIDs.isEmpty {
            ios = ["platform": "iOS", "checked": false, "text": "left alone: no app id is registered, so no App Attest key can be verified."]
        } else {
            ios = ["platform": "iOS", "checked": true, "text": .string("must bring a verified App Attest assertion (\(environment.appleAppIDs.joined(separator: ", "))).")]
        }
        return [android, ios]
    }

    /// POST /environments/{id}: the rename/kind form (`name`, `kind`) or the attack-mode switch (`attackMode` = on/off).
    func updateEnvironment(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try editor(request, form: form)
        let environment = try services.environments.get(try request.parameter("environmentId"))
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
        let updated = try services.environments.patch(environment.id, with: patch, actor: context.actor)
        let flash: String
        if let attackMode = patch.attackMode, patch.name == nil {
            flash = attackMode
                ? "Attack mode is on: installs that could have attested and did not are challenged until you turn it off."
                : "Attack mode is off: a phone without an attestation is scored on what it says again."
        } else {
            flash = "Saved \(updated.name) (\(updated.kind.rawValue))."
        }
        return try done(context, to: "/environments/\(environment.id)", flash: flash)
    }

    func deleteEnvironmentPage(_ request: Request) throws -> Response {
        let context = try self.context(request)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        try requireEditorForConfirmation(context)
        return deleteEnvironmentView(context, environment, typed: "", error: nil, status: 200)
    }

    func deleteEnvironmentView(_ context: DashboardContext, _ environment: Environment, typed: String, error: String?, status: Int) -> Response {
        var data = environmentHead(environment, tab: "overview")
        data["confirm"] = [
            "heading": .string("Delete \(environment.name)?"),
            "lead": "This deletes the environment and everything registered in it, at once and for good:",
            "consequences": [
                .string("its registered apps (\(environment.androidApps.count) Android, \(environment.appleAppIDs.count) Apple) stop being recognized;"),
                "its Play Integrity credentials are erased;",
                "every API key of the environment stops working, so apps and servers using them are refused.",
            ],
            "note": "The audit log keeps its entries.",
            "action": .string("/environments/\(environment.id)/delete"),
            "button": "Delete environment",
            "cancel": .string("/environments/\(environment.id)"),
            "typeName": ["expected": .string(environment.name), "value": .string(typed), "error": error.map { .string($0) } ?? .null],
        ]
        return views.page("pages/environment-confirm", title: "Delete \(environment.name)", data, context: context, status: status, section: "environments")
    }

    func deleteEnvironment(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try editor(request, form: form)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let typed = form["confirmName"] ?? ""
        guard typed.trimmingCharacters(in: .whitespacesAndNewlines) == environment.name else {
            let error = typed.isEmpty ? "Type the environment's name to confirm." : "This is not the environment's name: type it exactly as shown above."
            return deleteEnvironmentView(context, environment, typed: typed, error: error, status: 422)
        }
        try services.environments.delete(environment.id, actor: context.actor)
        return try done(context, to: "/environments", flash: "Deleted \(environment.name), with its apps, credentials and keys.")
    }

    /// Confirmation pages are for editors only; a viewer reaching one by its address gets the 403 page.
    func requireEditorForConfirmation(_ context: DashboardContext) throws {
        guard context.session.admin.role.canEdit else {
            throw DomainError.forbidden("viewers can read but not change anything; ask an owner for the editor role")
        }
    }

    /// The header and tab bar shared by every page of one environment.
    func environmentHead(_ environment: Environment, tab: String) -> [String: MustacheValue] {
        [
            "environment": [
                "id": .string(environment.id),
                "name": .string(environment.name),
                "kind": .string(environment.kind.rawValue),
                "production": .bool(environment.kind == .production),
                "attackMode": .bool(environment.attackMode),
            ],
            "tab_" + tab: true,
        ]
    }
}

/// How the environment pages write times and counts.
enum EnvironmentTime {
    /// `30 Nov 2026, 03:00 UTC`.
    static func display(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "d MMM yyyy, HH:mm 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// `1 app`, `3 apps`, `no apps`.
    static func count(_ n: Int, _ one: String, _ many: String) -> String {
        n == 0 ? "no \(many)" : n == 1 ? "1 \(one)" : "\(n) \(many)"
    }
}
