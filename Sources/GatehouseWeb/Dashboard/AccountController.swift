import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// The signed-in admin's own account: who they are, and changing their password (which ends their other sessions).
struct AccountController: Sendable {
    let pages: Pages
    let admins: Admins

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/account", pages.html(accountPage))
        add("POST", "/account/password", pages.html(changePassword))
    }

    func accountPage(_ request: Request) throws -> Response {
        try accountView(try pages.context(request), values: [:], status: 200)
    }

    func accountView(_ context: DashboardContext, values: [String: MustacheValue], status: Int) throws -> Response {
        let admin = context.session.admin
        var data = values
        data["account"] = [
            "email": .string(admin.email),
            "role": .string(admin.role.rawValue),
            "roleText": .string(Self.roleText(admin.role)),
            "signedIn": Dates.value(context.session.createdAt),
        ]
        return pages.page("pages/account", title: "Your account", data, context: context, status: status, section: "account")
    }

    static func roleText(_ role: Admin.Role) -> String {
        switch role {
        case .owner: "You manage everything, including admins."
        case .editor: "You change environments, keys and tokens; an owner manages admins."
        case .viewer: "You can read everything but not change it; ask an owner for the editor role."
        }
    }

    /// Changing one's own password is open to every role (viewers included): it changes only the account itself.
    func changePassword(_ request: Request) throws -> Response {
        let form = try Form.read(request)
        let context = try pages.context(request)
        try pages.checkCSRF(form, context)
        let new = form["password"] ?? ""
        do {
            if new != (form["confirm"] ?? "") {
                // Say what else is wrong with the new password too; the current one is not checked (no argon2id run).
                var errors = FieldErrors()
                for error in Admins.validate(email: context.session.admin.email, password: new).errors where error.pointer == "/password" {
                    errors.add(error.pointer, error.message)
                }
                errors.add("/confirm", "does not match the new password")
                throw ValidationError(errors.errors)
            }
            try admins.changePassword(id: context.session.admin.id, current: form["current"] ?? "", new: new, keeping: context.token)
        } catch let error as ValidationError {
            return try accountView(context, values: ["errors": fieldErrors(error)], status: 422)
        }
        return try pages.done(context, to: "/account", flash: "Your password is changed. Your other sessions are signed out; this one stays.")
    }
}
