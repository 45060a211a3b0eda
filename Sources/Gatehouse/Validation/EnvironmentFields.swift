import Foundation
import JSON

/// Checks of the plain environment fields, shared by creation and patches (API and dashboard alike).
public enum EnvironmentFields {
    public static let maxNameLength = 100

    /// A trimmed, non-empty name of at most 100 characters, or nil with an error added.
    public static func name(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> String? {
        guard let raw = value.string else {
            errors.add(pointer, "must be a string")
            return nil
        }
        return name(raw, at: pointer, errors: &errors)
    }

    public static func name(_ raw: String, at pointer: String, errors: inout FieldErrors) -> String? {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else {
            errors.add(pointer, "must not be empty")
            return nil
        }
        guard name.count <= maxNameLength else {
            errors.add(pointer, "must be at most \(maxNameLength) characters")
            return nil
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            errors.add(pointer, "must not contain control characters")
            return nil
        }
        return name
    }

    public static func kind(_ value: JSON, at pointer: String, errors: inout FieldErrors) -> EnvironmentKind? {
        guard let raw = value.string, let kind = EnvironmentKind(rawValue: raw) else {
            errors.add(pointer, "must be \"production\" or \"development\"")
            return nil
        }
        return kind
    }

    /// Reads a new environment's `{name, kind}`.
    public static func newEnvironment(_ json: JSON) throws(ValidationError) -> (name: String, kind: EnvironmentKind) {
        guard let members = json.members else { throw ValidationError("", "the body must be a JSON object with name and kind") }
        var errors = FieldErrors()
        var name: String?
        var kind: EnvironmentKind?
        for member in members {
            switch member.key {
            case "name": name = Self.name(member.value, at: "/name", errors: &errors)
            case "kind": kind = Self.kind(member.value, at: "/kind", errors: &errors)
            default: errors.add(Pointer.join("", member.key), "is not accepted here (expected name and kind; register apps with PATCH)")
            }
        }
        if json["name"] == nil { errors.add("/name", "is required") }
        if json["kind"] == nil { errors.add("/kind", "is required: \"production\" or \"development\"") }
        try errors.throwIfAny()
        guard let name, let kind else { throw ValidationError(errors.errors) }
        return (name, kind)
    }
}
