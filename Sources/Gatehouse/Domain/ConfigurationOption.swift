import Foundation

/// One command-line option: its flag, the `GATEHOUSE_*` variable that also sets it (none for a command's own options),
/// the variable naming a file that holds it (a mounted secret), its help text, whether it takes a value, and whether
/// it may be given more than once. Every command reads its options through ``ConfigurationValues/parse(_:environment:options:positional:)``.
public struct ConfigurationOption: Sendable {
    public let flag: String
    public let variable: String?
    /// A variable naming a file whose trimmed contents are the value when neither the flag nor ``variable`` is given.
    public let fileVariable: String?
    public let help: String
    public let takesValue: Bool
    /// Given any number of times (``ConfigurationValues/all(_:)``); otherwise once for a command's own option, and
    /// the last one given wins for a setting (which a wrapper script may override).
    public let repeatable: Bool

    public init(flag: String, variable: String? = nil, fileVariable: String? = nil, help: String = "", takesValue: Bool = true,
                repeatable: Bool = false) {
        self.flag = flag
        self.variable = variable
        self.fileVariable = fileVariable
        self.help = help
        self.takesValue = takesValue
        self.repeatable = repeatable
    }

    /// A command's own options: `values` take a value (once), `repeatable` ones any number of times, `switches` none.
    public static func command(values: [String], repeatable: [String] = [], switches: [String] = []) -> [ConfigurationOption] {
        values.map { ConfigurationOption(flag: $0) } + repeatable.map { ConfigurationOption(flag: $0, repeatable: true) }
            + switches.map { ConfigurationOption(flag: $0, takesValue: false) }
    }

    /// The help lines of `options`.
    public static func helpText(_ options: [ConfigurationOption]) -> String {
        options.map { o in
            let name = o.flag + (o.takesValue ? " VALUE" : "")
            return "  " + name.padding(toLength: max(22, name.count), withPad: " ", startingAt: 0) + " " + o.help + (o.variable.map { " [" + $0 + "]" } ?? "")
        }.joined(separator: "\n")
    }
}

/// An option of a configuration `Target` (the domain's, the web's): its declaration and what a given value sets, so
/// that each flag is named once. Read by ``ConfigurationValues/apply(_:to:)`` in declaration order.
public struct Setting<Target>: Sendable {
    public let option: ConfigurationOption
    let set: @Sendable (inout Target, OptionValue) throws -> Void

    /// The option `flag` (also the variable `variable`, or a file that `fileVariable` names) and what its value sets.
    public init(_ flag: String, _ variable: String, file fileVariable: String? = nil, help: String, takesValue: Bool = true,
                set: @escaping @Sendable (inout Target, OptionValue) throws -> Void) {
        option = ConfigurationOption(flag: flag, variable: variable, fileVariable: fileVariable, help: help, takesValue: takesValue)
        self.set = set
    }

    private init(option: ConfigurationOption, set: @escaping @Sendable (inout Target, OptionValue) throws -> Void) {
        self.option = option
        self.set = set
    }

    /// The same option setting the part of an `Outer` configuration at `part` (the web's configuration embeds the
    /// domain's).
    public func within<Outer>(_ part: WritableKeyPath<Outer, Target> & Sendable) -> Setting<Outer> {
        let set = self.set
        return Setting<Outer>(option: option) { outer, value in try set(&outer[keyPath: part], value) }
    }
}

/// The value given for one option, with the reads that name the option (flag and variable) in their messages.
public struct OptionValue: Sendable {
    /// As given.
    public let text: String
    /// How messages name the option: `--port / GATEHOUSE_PORT`.
    public let name: String

    /// A mistake in this value, said with the option's name first.
    public func mistake(_ what: String) -> ConfigurationError {
        ConfigurationError("\(name) \(what)")
    }

    /// The text, which must not be empty (`needs` says what it names).
    /// - Throws: `ConfigurationError`.
    public func nonEmpty(_ needs: String) throws(ConfigurationError) -> String {
        guard !text.isEmpty else { throw mistake("must name \(needs)") }
        return text
    }

    /// Whether the switch is on: true/false, yes/no, on/off, 1/0 (a flag given without a value reads "true"; an
    /// empty variable is off).
    /// - Throws: `ConfigurationError` for anything else.
    public func flag() throws(ConfigurationError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "", "0", "false", "no", "off": return false
        default: throw ConfigurationError("\(name.prefix { $0 != " " }) takes true or false")
        }
    }

    /// The whole number within `range`; `meaning` follows the range in the error (what its ends mean).
    /// - Throws: `ConfigurationError` saying the range.
    public func integer(in range: ClosedRange<Int>, meaning: String = "") throws(ConfigurationError) -> Int {
        guard let n = Int(text), range.contains(n) else {
            throw mistake("must be a number from \(range.lowerBound) to \(range.upperBound)\(meaning), got \(text)")
        }
        return n
    }

    /// A rate: requests per second, 0 (no limit) to a million.
    /// - Throws: `ConfigurationError` saying the range.
    public func rate() throws(ConfigurationError) -> Double {
        guard let n = Double(text), n.isFinite, (0...1_000_000).contains(n) else {
            throw mistake("must be a number of requests per second from 0 (no limit) to 1000000, got \(text)")
        }
        return n
    }

    /// An `https://` URL.
    /// - Throws: `ConfigurationError`.
    public func https() throws(ConfigurationError) -> String {
        guard text.lowercased().hasPrefix("https://"), text.count > "https://".count else { throw mistake("must be an https:// URL, got \(text)") }
        return text
    }
}

/// The values given for a set of options: flags (`--flag value` or `--flag=value`) over environment variables (over a
/// file a `*_FILE` variable names), by flag. The one command-line parser: every command reads its arguments here.
public struct ConfigurationValues: Sendable {
    var values: [String: [String]]
    let options: [ConfigurationOption]

    /// Reads `arguments` over `environment` for `options`; returns the values and the positional arguments (more than
    /// `positional` of them, or an unknown flag, is an error).
    /// - Throws: `ConfigurationError` naming the argument.
    public static func parse(_ arguments: [String], environment: [String: String], options: [ConfigurationOption],
                             positional: Int = 0) throws(ConfigurationError) -> (ConfigurationValues, [String]) {
        var fromEnvironment: [String: [String]] = [:]
        for option in options {
            if let variable = option.variable, let v = environment[variable] {
                fromEnvironment[option.flag] = [v]
            } else if let file = option.fileVariable, let path = environment[file], !path.isEmpty {
                guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                    throw ConfigurationError("\(file) names \(path), which cannot be read")
                }
                let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !value.isEmpty else { throw ConfigurationError("\(file) names \(path), which is empty") }
                fromEnvironment[option.flag] = [value]
            }
        }
        var given: [String: [String]] = [:]
        var rest: [String] = []
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            let (flag, inline) = arg.hasPrefix("--") && arg.contains("=")
                ? (String(arg.prefix { $0 != "=" }), String(arg.drop { $0 != "=" }.dropFirst()))
                : (arg, nil as String?)
            if let option = options.first(where: { $0.flag == flag }) {
                var value = inline ?? "true"
                if option.takesValue, inline == nil {
                    guard i + 1 < arguments.count else { throw ConfigurationError("\(flag) needs a value" + (option.help.isEmpty ? "" : ": \(option.help)")) }
                    value = arguments[i + 1]
                    i += 1
                }
                if option.repeatable {
                    given[flag, default: []].append(value)
                } else {
                    // A server's setting may be given again to override a wrapper's default; a command's own input
                    // named twice is ambiguous.
                    guard option.variable != nil || given[flag] == nil else { throw ConfigurationError("\(flag) is given twice") }
                    given[flag] = [value]
                }
            } else if arg.hasPrefix("-") {
                throw ConfigurationError("unknown option \(arg); see --help")
            } else {
                rest.append(arg)
            }
            i += 1
        }
        if rest.count > positional { throw ConfigurationError("unexpected argument \(rest[positional]); see --help") }
        return (ConfigurationValues(values: fromEnvironment.merging(given) { _, flag in flag }, options: options), rest)
    }

    /// Sets `target` from the values given for `settings`, in the settings' order.
    /// - Throws: `ConfigurationError` saying what to set.
    public func apply<Target>(_ settings: [Setting<Target>], to target: inout Target) throws(ConfigurationError) {
        for setting in settings {
            guard let text = values[setting.option.flag]?.last else { continue }
            do {
                try setting.set(&target, OptionValue(text: text, name: name(setting.option.flag)))
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError("\(name(setting.option.flag)): \(error)")
            }
        }
    }

    /// The value given for `flag` (the last, for a repeatable one; "true" for a switch given without one), if any.
    public subscript(flag: String) -> String? { values[flag]?.last }

    /// Every value given for `flag`, in order.
    public func all(_ flag: String) -> [String] { values[flag] ?? [] }

    /// The value of `flag`.
    /// - Throws: `ConfigurationError` when it is not given.
    public func required(_ flag: String) throws(ConfigurationError) -> String {
        guard let value = self[flag] else { throw ConfigurationError("\(flag) is required; see --help") }
        return value
    }

    /// How messages name `flag`: with its variable (`--port / GATEHOUSE_PORT`).
    public func name(_ flag: String) -> String {
        guard let variable = options.first(where: { $0.flag == flag })?.variable else { return flag }
        return "\(flag) / \(variable)"
    }
}
