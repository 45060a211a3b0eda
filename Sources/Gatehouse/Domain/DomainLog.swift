/// Where the domain reports what happens in its background work (a purge that failed, migrations applied, App Attest
/// roots replaced): the web's logger when serving, nothing in tests and one-shot commands. Fields never carry a
/// secret.
public struct DomainLog: Sendable {
    /// How much a line matters.
    public enum Level: Sendable {
        case info, warning, error
    }

    private let write: @Sendable (Level, String, [String: String]) -> Void

    /// A log that hands each line to `write`.
    public init(_ write: @escaping @Sendable (Level, String, [String: String]) -> Void) {
        self.write = write
    }

    /// A log that drops every line.
    public static let silent = DomainLog { _, _, _ in }

    public func info(_ message: String, _ fields: [String: String] = [:]) { write(.info, message, fields) }
    public func warning(_ message: String, _ fields: [String: String] = [:]) { write(.warning, message, fields) }
    public func error(_ message: String, _ fields: [String: String] = [:]) { write(.error, message, fields) }
}
