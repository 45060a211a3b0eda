import Foundation

/// One start-up option: its flag, the `GATEHOUSE_*` variable that also sets it, and its help text.
public struct ConfigurationOption: Sendable {
    public let flag: String
    public let variable: String
    public let help: String
    public let takesValue: Bool

    public init(flag: String, variable: String, help: String, takesValue: Bool) {
        self.flag = flag
        self.variable = variable
        self.help = help
        self.takesValue = takesValue
    }

    /// The help lines of `options`.
    public static func helpText(_ options: [ConfigurationOption]) -> String {
        options.map { o in
            let name = o.flag + (o.takesValue ? " VALUE" : "")
            return "  " + name.padding(toLength: max(22, name.count), withPad: " ", startingAt: 0) + " " + o.help + " [" + o.variable + "]"
        }.joined(separator: "\n")
    }
}

/// The values given for a set of options: flags (`--flag value` or `--flag=value`) over environment variables, by flag;
/// what each means is read by the configuration that declared the option (``DomainConfiguration``, the web's).
public struct ConfigurationValues: Sendable {
    var values: [String: String]
    /// Each option's variable, by flag (for the messages, which name both).
    let variables: [String: String]
    /// The process environment (for the `*_FILE` variables that name a file holding a secret).
    let environment: [String: String]

    /// Reads `arguments` over `environment` for `options`; returns the values and the positional arguments (more than
    /// `positional` of them, or an unknown flag, is an error).
    /// - Throws: `ConfigurationError` naming the argument.
    public static func parse(_ arguments: [String], environment: [String: String], options: [ConfigurationOption],
                             positional: Int = 0) throws(ConfigurationError) -> (ConfigurationValues, [String]) {
        var values: [String: String] = [:]
        for option in options {
            if let v = environment[option.variable] { values[option.flag] = v }
        }
        var rest: [String] = []
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            let (flag, inline) = arg.hasPrefix("--") && arg.contains("=")
                ? (String(arg.prefix { $0 != "=" }), String(arg.drop { $0 != "=" }.dropFirst()))
                : (arg, nil as String?)
            if let option = options.first(where: { $0.flag == flag }) {
                if option.takesValue {
                    if let inline {
                        values[flag] = inline
                    } else {
                        guard i + 1 < arguments.count else { throw ConfigurationError("\(flag) needs a value: \(option.help)") }
                        values[flag] = arguments[i + 1]
                        i += 1
                    }
                } else {
                    values[flag] = inline ?? "true"
                }
            } else if arg.hasPrefix("-") {
                throw ConfigurationError("unknown option \(arg); see --help")
            } else {
                rest.append(arg)
            }
            i += 1
        }
        if rest.count > positional { throw ConfigurationError("unexpected argument \(rest[positional]); see --help") }
        let variables = Dictionary(options.map { ($0.flag, $0.variable) }, uniquingKeysWith: { first, _ in first })
        return (ConfigurationValues(values: values, variables: variables, environment: environment), rest)
    }

    /// How messages name `flag`: with its variable (`--port / GATEHOUSE_PORT`).
    public func name(_ flag: String) -> String {
        variables[flag].map { "\(flag) / \($0)" } ?? flag
    }

    /// The value given for `flag`, if any.
    public subscript(flag: String) -> String? { values[flag] }

    /// The value of `flag`, else the trimmed contents of the file that the variable `fileVariable` names (a secret
    /// mounted into a container).
    /// - Throws: `ConfigurationError` when that file cannot be read or is empty.
    func value(_ flag: String, orFileNamedBy fileVariable: String) throws(ConfigurationError) -> String? {
        if let value = values[flag] { return value }
        guard let path = environment[fileVariable], !path.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("\(fileVariable) names \(path), which cannot be read")
        }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty else { throw ConfigurationError("\(fileVariable) names \(path), which is empty") }
        return value
    }

    /// Whether the switch `flag` is on (absent: off).
    /// - Throws: `ConfigurationError` for a value other than true/false, yes/no, on/off, 1/0.
    public func flag(_ flag: String) throws(ConfigurationError) -> Bool {
        switch values[flag]?.lowercased() {
        case nil, "", "0", "false", "no", "off": return false
        case "1", "true", "yes", "on": return true
        default: throw ConfigurationError("\(flag) takes true or false")
        }
    }

    /// The whole number given for `flag` within `range`, if any; `meaning` follows the range in the error (what its
    /// ends mean).
    /// - Throws: `ConfigurationError` saying the range.
    public func integer(_ flag: String, in range: ClosedRange<Int>, meaning: String = "") throws(ConfigurationError) -> Int? {
        guard let v = values[flag] else { return nil }
        guard let n = Int(v), range.contains(n) else {
            throw ConfigurationError("\(name(flag)) must be a number from \(range.lowerBound) to \(range.upperBound)\(meaning), got \(v)")
        }
        return n
    }

    /// The rate (requests per second, 0 to a million) given for `flag`, if any.
    /// - Throws: `ConfigurationError` saying the range.
    public func rate(_ flag: String) throws(ConfigurationError) -> Double? {
        guard let value = values[flag] else { return nil }
        guard let n = Double(value), n.isFinite, (0...1_000_000).contains(n) else {
            throw ConfigurationError("\(name(flag)) must be a number of requests per second from 0 (no limit) to 1000000, got \(value)")
        }
        return n
    }
}
