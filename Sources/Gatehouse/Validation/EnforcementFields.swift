import GatehouseReceipts
import JSON

/// Reads an environment's `enforcement` (docs/device-api.md "Routes and modes"): `{"mode", "routes": [{"name", "match",
/// "mode", "require", "consume"}]}`, every fault named by pointer (`/enforcement/routes/2/match`).
public enum EnforcementFields {
    /// The mode and the routes a patch sets (nil: left alone).
    public static func parse(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> (mode: EnforcementMode?, routes: [EnforcementRoute]?) {
        if value.isNull { return (.off, []) }
        guard let members = value.members else {
            errors.add(pointer, "must be an object {\"mode\": \"off\" | \"monitor\" | \"enforce\", \"routes\": […]}, or null to turn enforcement off and remove every route")
            return (nil, nil)
        }
        var mode: EnforcementMode?
        var routes: [EnforcementRoute]?
        for member in members {
            let at = Pointer.join(pointer, member.key)
            switch member.key {
            case "mode":
                if member.value.isNull {
                    mode = .off
                } else if let read = Self.mode(member.value, at: at, errors: &errors) {
                    mode = read
                }
            case "routes":
                if member.value.isNull {
                    routes = []
                } else {
                    routes = Self.routes(member.value, at: at, errors: &errors)
                }
            default:
                errors.add(at, "is not an enforcement setting (expected mode or routes)")
            }
        }
        return (mode, routes)
    }

    static func mode(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> EnforcementMode? {
        guard let text = value.string, let mode = EnforcementMode(rawValue: text) else {
            errors.add(pointer, "must be \"off\" (check nothing), \"monitor\" (judge and count, never refuse) or \"enforce\" (refuse what is not verified)")
            return nil
        }
        return mode
    }

    static func routes(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> [EnforcementRoute]? {
        guard let elements = value.array else {
            errors.add(pointer, "must be an array of routes (the whole list, in order), or null to remove them all")
            return nil
        }
        guard elements.count <= EnforcementSettings.maxRoutes else {
            errors.add(pointer, "must hold at most \(EnforcementSettings.maxRoutes) routes")
            return nil
        }
        let before = errors.errors.count
        var routes: [EnforcementRoute] = []
        var seen: [String: Int] = [:]
        for (i, element) in elements.enumerated() {
            let at = Pointer.join(pointer, i)
            guard let route = self.route(element, at: at, errors: &errors) else { continue }
            if let first = seen[route.name] {
                errors.add(Pointer.join(at, "name"), "duplicates \(pointer)/\(first)/name: each route has its own name")
                continue
            }
            seen[route.name] = i
            routes.append(route)
        }
        return errors.errors.count == before ? routes : nil
    }

    /// One route, or nil with its faults added.
    public static func route(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> EnforcementRoute? {
        guard let members = value.members else {
            errors.add(pointer, "must be a route {\"name\", \"match\", \"mode\", \"require\", \"consume\"}")
            return nil
        }
        let before = errors.errors.count
        var name: String?
        var match: RouteMatch?
        var mode: EnforcementMode?
        var policy = ReceiptPolicy()
        var consume = false
        for member in members {
            let at = Pointer.join(pointer, member.key)
            switch member.key {
            case "name":
                name = Self.name(member.value, at: at, errors: &errors)
            case "match":
                match = Self.match(member.value, at: at, errors: &errors)
            case "mode":
                if !member.value.isNull { mode = Self.mode(member.value, at: at, errors: &errors) }
            case "require":
                policy = ReceiptPolicyFields.parse(member.value, at: at, errors: &errors)
            case "consume":
                switch member.value {
                case .bool(let value): consume = value
                case .null: consume = false
                default: errors.add(at, "must be true (a call that meets everything spends its receipt: valid once) or false")
                }
            default:
                errors.add(at, "is not a member of a route (expected name, match, mode, require and consume)")
            }
        }
        if value["name"] == nil { errors.add(Pointer.join(pointer, "name"), "is required: [a-z0-9][a-z0-9-]{0,39}, e.g. \"payments\"") }
        if value["match"] == nil { errors.add(Pointer.join(pointer, "match"), "is required: a method or *, a space and a path pattern, e.g. \"POST /api/payments/**\"") }
        guard errors.errors.count == before, let name, let match else { return nil }
        return EnforcementRoute(name: name, match: match, mode: mode, require: policy, consume: consume)
    }

    public static func name(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> String? {
        guard let text = value.string, EnforcementRoute.isName(text) else {
            errors.add(pointer, "must be 1 to 40 lower-case letters, digits and hyphens, starting with a letter or digit, e.g. \"payments\"")
            return nil
        }
        return text
    }

    public static func match(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> RouteMatch? {
        guard let text = value.string else {
            errors.add(pointer, "must be a string: a method or *, a space and a path pattern, e.g. \"POST /api/payments/**\"")
            return nil
        }
        do {
            return try RouteMatch(text)
        } catch {
            errors.add(pointer, error.message)
            return nil
        }
    }
}

extension EnforcementSettings {
    /// The wire form: `{"mode", "routes": [{"name", "match", "mode"?, "require", "consume"}]}`.
    public var json: JSON {
        .object([
            .init("mode", .string(mode.rawValue)),
            .init("routes", .array(routes.map { route in
                var members: [JSON.Member] = [.init("name", .string(route.name)), .init("match", .string(route.match.text))]
                if let mode = route.mode { members.append(.init("mode", .string(mode.rawValue))) }
                members.append(.init("require", ReceiptPolicyFields.json(route.require)))
                members.append(.init("consume", .bool(route.consume)))
                return .object(members)
            })),
        ])
    }
}
