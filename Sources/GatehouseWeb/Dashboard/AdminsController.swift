import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// Admins (owners only): list, add, change role, disable and enable. The last active owner cannot be demoted or
/// disabled (the domain refuses; the page says why).
struct AdminsController: Sendable {
    let pages: Pages
    let admins: Admins

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/admins", pages.html(adminsPage))
        add("POST", "/admins", pages.html(addAdmin))
        add("POST", "/admins/{id}/role", pages.html(changeAdminRole))
        add("GET", "/admins/{id}/disable", pages.html(disableAdminPage))
        add("POST", "/admins/{id}/disable", pages.html(setAdminDisabled(true)))
        add("POST", "/admins/{id}/enable", pages.html(setAdminDisabled(false)))
    }

    func adminsPage(_ request: Request) throws -> Response {
        try adminsView(try pages.owner(request), values: [:], status: 200)
    }

    func adminsView(_ context: DashboardContext, values: [String: MustacheValue], status: Int) throws -> Response {
        let admins = try admins.list()
        var data = values
        data["admins"] = .array(admins.map { admin in
            [
                "id": .string(admin.id),
                "email": .string(admin.email),
                "role": .string(admin.role.rawValue),
                "owner": .bool(admin.role == .owner),
                "disabled": .bool(admin.disabled),
                "you": .bool(admin.id == context.session.admin.id),
                "created": Dates.value(admin.createdAt),
                "roles": .array(Admin.Role.allCases.map { ["value": .string($0.rawValue), "selected": .bool($0 == admin.role)] }),
            ]
        })
        if data["newRoles"] == nil { data["newRoles"] = Self.roleOptions(selected: .editor) }
        return pages.page("pages/admins", title: "Admins", data, context: context, status: status, section: "admins")
    }

    static func roleOptions(selected: Admin.Role) -> MustacheValue {
        .array(Admin.Role.allCases.map { ["value": .string($0.rawValue), "selected": .bool($0 == selected)] })
    }

    func addAdmin(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.owner(request, form: form)
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let role = Admin.Role(rawValue: form["role"] ?? "")
        do {
            var errors = Admins.validate(email: email, password: form["password"] ?? "")
            if role == nil { errors.add("/role", "must be owner, editor or viewer") }
            try errors.throwIfAny()
            try admins.create(email: email, password: form["password"] ?? "", role: role ?? .viewer, actor: context.actor)
        } catch let error as ValidationError {
            return try adminsView(context, values: ["errors": fieldErrors(error), "email": .string(email), "newRoles": Self.roleOptions(selected: role ?? .editor)], status: 422)
        }
        return try pages.done(context, to: "/admins", flash: "\(email) is now an admin (\(role?.rawValue ?? "")). Give them the password through a private channel; they can change it on their Account page.")
    }

    func changeAdminRole(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.owner(request, form: form)
        let id = try request.parameter("id")
        guard let role = Admin.Role(rawValue: form["role"] ?? "") else { throw DomainError.notFound("no role \(form["role"] ?? "")") }
        do {
            let admin = try admins.setRole(id: id, role: role, actor: context.actor)
            let yourself = admin.id == context.session.admin.id
            return try pages.done(context, to: yourself && role != .owner ? "/account" : "/admins",
                            flash: "\(yourself ? "You are" : admin.email + " is") now \(role == .viewer ? "a" : "an") \(role.rawValue).")
        } catch DomainError.conflict(let message) {
            return try adminsView(context, values: ["refusal": .string(Problem.sentence(message))], status: 409)
        }
    }

    func disableAdminPage(_ request: Request) throws -> Response {
        let context = try pages.owner(request)
        let admin = try admins.get(try request.parameter("id"))
        return pages.page("pages/admins-disable", title: "Disable \(admin.email)", [
            "target": ["id": .string(admin.id), "email": .string(admin.email), "role": .string(admin.role.rawValue)],
            "yourself": .bool(admin.id == context.session.admin.id),
        ], context: context, section: "admins")
    }

    func setAdminDisabled(_ disabled: Bool) -> Pages.PageHandler {
        { request in
            let form = try Form.read(request)
            let context = try pages.owner(request, form: form)
            do {
                let admin = try admins.setDisabled(id: try request.parameter("id"), disabled: disabled, actor: context.actor)
                if disabled, admin.id == context.session.admin.id { throw Redirect(to: "/login") }
                return try pages.done(context, to: "/admins", flash: disabled
                    ? "\(admin.email) is disabled and signed out everywhere. Their audit history stays."
                    : "\(admin.email) can sign in again.")
            } catch DomainError.conflict(let message) {
                return try adminsView(context, values: ["refusal": .string(Problem.sentence(message))], status: 409)
            }
        }
    }
}
