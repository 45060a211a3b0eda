import Gatehouse
import HTTP
import Mustache

/// The dashboard's templates (`Templates/`, parsed once at start-up) and how a page is rendered: the page's own
/// values plus what the layout needs (the admin, the CSRF token, the flash message, the active section).
public struct Views: Sendable {
    let library: TemplateLibrary

    /// Loads every template; a syntax error names the file, line and column and stops start-up.
    public init(directory: String) throws {
        library = try TemplateLibrary(directory: directory)
    }

    /// An HTML response of template `name` with `values` (merged over the layout's values).
    func page(_ name: String, title: String, _ values: [String: MustacheValue], context: DashboardContext?, status: Int = 200, section: String = "") -> Response {
        var data = values
        data["title"] = .string(title)
        data["section_" + (section.isEmpty ? "none" : section)] = true
        if let context {
            data["admin"] = [
                "email": .string(context.session.admin.email),
                "role": .string(context.session.admin.role.rawValue),
                "canEdit": .bool(context.session.admin.role.canEdit),
                "isOwner": .bool(context.session.admin.role == .owner),
            ]
            data["csrf"] = .string(context.session.csrfToken)
            if let flash = context.session.flash {
                data["flash"] = ["message": .string(flash.message), "warning": .bool(flash.tone == .warning)]
            }
        }
        var headers: Headers = ["Content-Type": "text/html; charset=utf-8"]
        if context != nil { headers.set("Cache-Control", "no-store") }
        do {
            return Response(status: status, headers: headers, body: try library.renderBytes(name, .dictionary(data)))
        } catch {
            // Templates are checked at start-up; an unknown name here is a programming error, answered as a 500.
            return Response(status: 500, contentType: "text/plain; charset=utf-8", body: "template \(name) failed\n")
        }
    }
}

/// Field errors by form field name (the JSON pointer without its leading slash, `/` replaced by `.`), for templates:
/// `{{#errors.name}}…{{/errors.name}}`.
func fieldErrors(_ error: ValidationError) -> MustacheValue {
    var map: [String: MustacheValue] = [:]
    for e in error.errors {
        let key = e.pointer.split(separator: "/").joined(separator: ".")
        if map[key] == nil { map[key] = .string(e.message) }
    }
    return .dictionary(map)
}
