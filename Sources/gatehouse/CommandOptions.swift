/// A subcommand's options, parsed from `--name value` and `--name=value`: single-valued names at most once,
/// repeatable ones any number of times, flags (no value) at most once. Anything else is a `UsageError` (an unknown
/// argument's shows the subcommand's usage).
struct CommandOptions {
    private var values: [String: [String]] = [:]
    /// The subcommand's usage, shown with an unknown argument or a missing required option.
    let usage: String

    /// Parses `arguments`.
    /// - Throws: `AppAttestCommand.UsageError` for an unknown argument, a missing value, or a name given twice.
    init(_ arguments: [String], single: Set<String>, repeatable: Set<String> = [], flags: Set<String> = [], usage: String) throws {
        self.usage = usage
        var index = 0
        while index < arguments.count {
            var name = arguments[index]
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flags.contains(name), value == nil {
                value = ""
            } else if single.contains(name) || repeatable.contains(name) {
                if value == nil {
                    guard index + 1 < arguments.count else { throw AppAttestCommand.UsageError("\(name) needs a value") }
                    index += 1
                    value = arguments[index]
                }
            } else {
                throw AppAttestCommand.UsageError("unknown argument \(arguments[index])\n\n\(usage)")
            }
            guard repeatable.contains(name) || values[name] == nil else { throw AppAttestCommand.UsageError("\(name) is given twice") }
            values[name, default: []].append(value ?? "")
            index += 1
        }
    }

    /// The value of `name` (the first of a repeatable one; "" for a flag given), nil when it is not given.
    subscript(name: String) -> String? { values[name]?.first }

    /// Every value of `name`, in order.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of `name`.
    /// - Throws: `AppAttestCommand.UsageError` (with the usage) when it is not given.
    func required(_ name: String) throws -> String {
        guard let value = self[name] else { throw AppAttestCommand.UsageError("\(name) is required\n\n\(usage)") }
        return value
    }
}
