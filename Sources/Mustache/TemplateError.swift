/// A template that cannot load or render: where (`file:line:column`, 1-based) and what to do about it.
/// Line and column are 0 when the error has no place in a file (an unknown template name, a missing directory).
public struct TemplateError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The template file (relative path with extension for a directory library, else the template's name).
    public var file: String
    /// The 1-based line of the offending tag, or 0.
    public var line: Int
    /// The 1-based column (in characters) of the offending tag, or 0.
    public var column: Int
    /// What is wrong, in words a template author can act on.
    public var message: String

    /// An error at a place in a template.
    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`, or `file: message` without a position.
    public var description: String {
        line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }
}
