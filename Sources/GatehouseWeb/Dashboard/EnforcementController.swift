import Gatehouse
import GatehouseReceipts
import HTTP
import HTTPServer
import JSON
import Mustache

/// The environment's Enforcement tab: its mode for calls no route matches, its routes in order with the week's
/// outcomes beside each, and forms (no JavaScript) to add a route, change a mode, move a route up or down and remove
/// one (after a confirmation page, as every removal on the dashboard: an enforced route removed stops refusing). Every change is the environment PATCH the Management API takes (`enforcement.routes` replaced whole), made
/// conditional on the revision the page showed, so two admins never overwrite each other's routes unseen.
struct EnforcementController: Sendable {
    let pages: Pages
    let environments: Environments
    let outcomes: EnforcementOutcomes

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/environments/{environmentId}/enforcement", pages.html(enforcementPage))
        add("POST", "/environments/{environmentId}/enforcement/mode", pages.html(setMode))
        add("POST", "/environments/{environmentId}/enforcement/routes", pages.html(addRoute))
        add("POST", "/environments/{environmentId}/enforcement/routes/{name}", pages.html(changeRoute))
        add("GET", "/environments/{environmentId}/enforcement/routes/{name}/remove", pages.html(removeRoutePage))
        add("POST", "/environments/{environmentId}/enforcement/routes/{name}/remove", pages.html(removeRoute))
    }

    func enforcementPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        return try view(context, environment, form: [:], errors: [:], status: 200)
    }

    static let modes: [(value: String, label: String)] = [("off", "off"), ("monitor", "monitor"), ("enforce", "enforce")]

    /// The tab; `form` and `errors` refill the add-route form that failed, with each message beside its field.
    func view(_ context: DashboardContext, _ environment: Environment, form: [String: String], errors: [String: String], status: Int) throws -> Response {
        let base = "/environments/\(environment.id)/enforcement"
        let settings = environment.enforcement
        let week = try outcomes.week(environmentID: environment.id, settings: settings)
        let counts = Dictionary(week.routes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var data = EnvironmentHead.values(environment, tab: "enforcement")
        data["revision"] = .string(environment.etag)
        data["modes"] = .array(Self.modes.map { ["value": .string($0.value), "label": .string($0.label), "selected": .bool($0.value == settings.mode.rawValue)] })
        data["modeLabel"] = .string(settings.mode.rawValue)
        let last = settings.routes.count - 1
        data["routes"] = .array(settings.routes.enumerated().map { index, route in
            let figures = counts[route.name] ?? RouteOutcomes(name: route.name)
            let own = route.mode?.rawValue ?? ""
            return [
                "name": .string(route.name),
                "match": .string(route.match.text),
                "mode": .string(settings.mode(of: route).rawValue),
                "inherits": .bool(route.mode == nil),
                "enforce": .bool(settings.mode(of: route) == .enforce),
                "requires": .string(Self.requirement(route)),
                "consume": .bool(route.consume),
                "action": .string("\(base)/routes/\(route.name)"),
                "removeURL": .string("\(base)/routes/\(route.name)/remove"),
                "modes": .array(([("", "inherit (\(settings.mode.rawValue))")] + Self.modes).map {
                    ["value": .string($0.0), "label": .string($0.1), "selected": .bool($0.0 == own)]
                }),
                "canMoveUp": .bool(index > 0),
                "canMoveDown": .bool(index < last),
                "outcomes": Self.outcomes(figures.all),
                "sentence": .string(EnforcementWording.wouldRefuse(figures)),
            ]
        })
        data["hasRoutes"] = .bool(!settings.routes.isEmpty)
        let unmatched = counts[EnforcementSettings.unmatched] ?? RouteOutcomes(name: EnforcementSettings.unmatched)
        data["unmatched"] = ["outcomes": Self.outcomes(unmatched.all), "sentence": .string(EnforcementWording.wouldRefuse(unmatched))]
        // Routes a backend's guard names (docs/device-api.md "Guards on the handler") that the environment does not hold.
        let held = Set(settings.routes.map(\.name) + [EnforcementSettings.unmatched])
        let unheld = week.routes.filter { !held.contains($0.name) && $0.all.total > 0 }
        data["unheld"] = .array(unheld.map { figures in
            ["name": .string(figures.name), "outcomes": Self.outcomes(figures.all), "sentence": .string(EnforcementWording.wouldRefuse(figures))]
        })
        data["hasUnheld"] = .bool(!unheld.isEmpty)
        data["add"] = [
            "name": .string(form["name"] ?? ""), "match": .string(form["match"] ?? ""),
            "bound": .bool(form["bound"] != nil), "attested": .bool(form["attested"] != nil), "debug": .bool(form["debug"] != nil),
            "consume": .bool(form["consume"] != nil),
            "modes": .array(([("", "inherit (\(settings.mode.rawValue))")] + Self.modes).map { ["value": .string($0.0), "label": .string($0.1), "selected": .bool($0.0 == (form["mode"] ?? ""))] }),
            "errors": .dictionary(errors.mapValues { .string($0) }),
            "failed": .bool(!errors.isEmpty),
        ]
        data["outcomeNames"] = .array(EnforcementOutcome.allCases.map { .string($0.rawValue) })
        return pages.page("pages/environment-enforcement", title: "Enforcement · \(environment.name)", data, context: context, status: status,
                          section: "environments")
    }

    /// The week's outcomes in the order of the table's columns.
    static func outcomes(_ counts: OutcomeCounts) -> MustacheValue {
        .array(EnforcementOutcome.allCases.map { outcome in
            ["name": .string(outcome.rawValue), "count": .string(Wording.number(counts[outcome])), "zero": .bool(counts[outcome] == 0)]
        })
    }

    /// What a route requires of a receipt, in words.
    static func requirement(_ route: EnforcementRoute) -> String {
        var parts: [String] = []
        if route.require.requiresBound { parts.append("bound") }
        if route.require.requiresVerifiedAttestation { parts.append(route.require.allowsDebug ? "attested (debug tokens too)" : "attested") }
        return parts.isEmpty ? "a valid receipt" : parts.joined(separator: ", ")
    }

    func setMode(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let id = try request.parameter("environmentId")
        let mode = form["mode"] ?? ""
        do {
            try save(id, [.init("mode", .string(mode))], form: form, context: context)
        } catch let error as ValidationError {
            return refused(error, request)
        }
        return try pages.done(context, to: "/environments/\(id)/enforcement", flash: "Calls no route matches are now judged under \(mode).")
    }

    func addRoute(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        var require: [JSON.Member] = []
        if form["bound"] != nil { require.append(.init("bound", .bool(true))) }
        if form["attested"] != nil { require.append(.init("attestation", .string(ReceiptAttestation.verified))) }
        if form["debug"] != nil { require.append(.init("debug", .bool(true))) }
        var route: [JSON.Member] = [.init("name", .string((form["name"] ?? "").trimmingCharacters(in: .whitespaces))),
                                    .init("match", .string((form["match"] ?? "").trimmingCharacters(in: .whitespaces)))]
        if let mode = form["mode"], !mode.isEmpty { route.append(.init("mode", .string(mode))) }
        route.append(.init("require", .object(require)))
        route.append(.init("consume", .bool(form["consume"] != nil)))
        let routes = Self.routesJSON(environment.enforcement) + [.object(route)]
        do {
            try save(environment.id, [.init("routes", .array(routes))], form: form, context: context)
        } catch let error as ValidationError {
            let index = "/enforcement/routes/\(routes.count - 1)/"
            var errors: [String: String] = [:]
            for field in error.errors {
                let key = field.pointer.hasPrefix(index) ? String(field.pointer.dropFirst(index.count)).split(separator: "/").first.map(String.init) ?? "form" : "form"
                let shown = key == "require" ? "form" : key
                errors[shown] = errors[shown].map { $0 + "; " + field.message } ?? field.message
            }
            return try view(context, environment, form: form.fields, errors: errors, status: 422)
        }
        return try pages.done(context, to: "/environments/\(environment.id)/enforcement",
                              flash: "Added the route \(form["name"] ?? ""): put the check in front of your API (docs/enforcement.md) and watch its outcomes here.")
    }

    /// `action`: a mode (`mode`, empty for the environment's), `up` or `down`.
    func changeRoute(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let name = try request.parameter("name")
        var routes = Self.routesJSON(environment.enforcement)
        guard let index = environment.enforcement.routes.firstIndex(where: { $0.name == name }) else {
            throw DomainError.notFound("no route \(name) in \(environment.name)")
        }
        let flash: String
        switch form["action"] ?? "" {
        case "mode":
            let mode = form["mode"] ?? ""
            guard case .object(var members) = routes[index] else { throw DomainError.notFound("no route \(name)") }
            members.removeAll { $0.key == "mode" }
            if !mode.isEmpty { members.insert(.init("mode", .string(mode)), at: 2) }
            routes[index] = .object(members)
            flash = "\(name) is now judged under \(mode.isEmpty ? "the environment's mode (\(environment.enforcement.mode.rawValue))" : mode)."
        case "up" where index > 0:
            routes.swapAt(index, index - 1)
            flash = "Moved \(name) up: it is tried before \(environment.enforcement.routes[index - 1].name)."
        case "down" where index < routes.count - 1:
            routes.swapAt(index, index + 1)
            flash = "Moved \(name) down: it is tried after \(environment.enforcement.routes[index + 1].name)."
        default:
            return refused(ValidationError("/action", "must be mode, up or down"), request)
        }
        do {
            try save(environment.id, [.init("routes", .array(routes))], form: form, context: context)
        } catch let error as ValidationError {
            return refused(error, request)
        }
        return try pages.done(context, to: "/environments/\(environment.id)/enforcement", flash: flash)
    }

    /// Asks before a route is removed, saying what its calls become.
    func removeRoutePage(_ request: Request) throws -> Response {
        let context = try pages.editor(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let name = try request.parameter("name")
        guard let route = environment.enforcement.routes.first(where: { $0.name == name }) else {
            throw DomainError.notFound("no route \(name) in \(environment.name)")
        }
        let settings = environment.enforcement
        var consequences: [MustacheValue] = [
            .string("its calls (\(route.match.text)) are judged by the next route that matches, or under the environment's mode (\(settings.mode.rawValue)) as (unmatched);"),
            .string("its counts stay in the week's figures under its name until they age out."),
        ]
        if settings.mode(of: route) == .enforce && settings.mode != .enforce {
            consequences.insert(.string("its calls are no longer refused where nothing else enforces them;"), at: 0)
        }
        if route.consume { consequences.insert(.string("its receipts are no longer spent: a receipt passes again within its ten minutes;"), at: 0) }
        let base = "/environments/\(environment.id)/enforcement"
        let confirmation = Confirmation(title: "Remove the route \(name)", lead: "\(environment.name) stops judging calls under this route:",
                                        consequences: consequences, action: "\(base)/routes/\(name)/remove", button: "Remove route",
                                        cancel: "\(base)#route-\(name)")
        return pages.confirmPage(confirmation, in: environment, tab: "enforcement", context: context)
    }

    func removeRoute(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.editor(request, form: form)
        let environment = try environments.get(try request.parameter("environmentId"))
        let name = try request.parameter("name")
        guard let index = environment.enforcement.routes.firstIndex(where: { $0.name == name }) else {
            throw DomainError.notFound("no route \(name) in \(environment.name)")
        }
        var routes = Self.routesJSON(environment.enforcement)
        routes.remove(at: index)
        let patch = try EnvironmentPatch.parse(.object([.init("enforcement", .object([.init("routes", .array(routes))]))]))
        _ = try environments.patch(environment.id, with: patch, actor: context.actor)
        return try pages.done(context, to: "/environments/\(environment.id)/enforcement",
                              flash: "Removed \(name): its calls are now judged by the next route that matches, or under the environment's mode.")
    }

    /// The page for a change the forms cannot send (a hand-made post): nothing was saved.
    func refused(_ error: ValidationError, _ request: Request) -> Response {
        pages.errorPage(422, "Not saved", "Not saved: " + error.errors.map { "\($0.pointer) \($0.message)" }.joined(separator: "; "), request: request)
    }

    /// Patches `enforcement` with `members`, conditional on the revision the page showed.
    func save(_ id: String, _ members: [JSON.Member], form: Form, context: DashboardContext) throws {
        let patch = try EnvironmentPatch.parse(.object([.init("enforcement", .object(members))]))
        _ = try environments.patch(id, with: patch, ifMatch: form["revision"], actor: context.actor)
    }

    /// The routes as the API writes them (what a PATCH of `routes` takes back).
    static func routesJSON(_ settings: EnforcementSettings) -> [JSON] {
        settings.json["routes"]?.array ?? []
    }
}
