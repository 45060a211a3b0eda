import Foundation
/// One rejected field: where it is in the request (a JSON Pointer, RFC 6901) and what was expected there.
/// The dashboard shows `message` beside the field; the API lists it under `errors`.
public struct FieldError: Sendable, Equatable {
    public var pointer: String
    public var message: String

    public init(_ pointer: String, _ message: String) {
        self.pointer = pointer
        self.message = message
    }
}

/// A request that failed validation, with every invalid field (not just the first). Nothing was written.
public struct ValidationError: Error, Sendable, Equatable {
    public var errors: [FieldError]

    public init(_ errors: [FieldError]) {
        self.errors = errors
    }

    public init(_ pointer: String, _ message: String) {
        self.errors = [FieldError(pointer, message)]
    }
}

/// Collects field errors while a request is checked, then throws them all at once.
public struct FieldErrors: Sendable {
    public private(set) var errors: [FieldError] = []

    public init() {}

    public mutating func add(_ pointer: String, _ message: String) {
        errors.append(FieldError(pointer, message))
    }

    public var isEmpty: Bool { errors.isEmpty }

    /// Throws a `ValidationError` holding every collected error, if any.
    public func throwIfAny() throws(ValidationError) {
        if !errors.isEmpty { throw ValidationError(errors) }
    }
}

/// Builds JSON Pointers (RFC 6901), escaping `~` and `/` in member names.
public enum Pointer {
    public static func join(_ base: String, _ token: String) -> String {
        // Most member names need no escape; Foundation's replacing is costly on a path run per field of every verdict.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return base + "/" + token }
        return base + "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    public static func join(_ base: String, _ index: Int) -> String {
        base + "/" + String(index)
    }
}
