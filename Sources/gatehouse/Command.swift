import Foundation
import JSON
import Gatehouse

/// The subcommands: serve, migrate, admin create, token create, backup, caches, receipts, app-attest, play-integrity,
/// key-attestation, simulate; `--help` on each.
enum Command {
    static let usage = """
    gatehouse — the self-hosted management plane for mobile-app attestation

    Usage:
      gatehouse serve [options]                          serve the dashboard and APIs (migrates first)
      gatehouse migrate [--database FILE]                apply pending migrations and exit
      gatehouse admin create --email E [--role ROLE]     create an admin; the password is read from standard input
      gatehouse token create --name N --scope read|write create a management API token and print it once
      gatehouse backup FILE [--database FILE]            copy a consistent snapshot while the server runs
      gatehouse caches reset [--database URL]            after SQL typed into PostgreSQL by hand: every server forgets
                                                         what it cached, within a second
      gatehouse receipts rotate-key [--revoke-now]       new receipt signing key; the old one stays published an hour
                                                         (--revoke-now: unpublished at once, after a leak)
      gatehouse app-attest verify-attestation|verify-assertion|verify-receipt ...
                                                         judge an App Attest object or receipt offline (JSON on stdout)
      gatehouse play-integrity decode ...                decrypt, verify and judge a Play Integrity token offline, under
                                                         a policy (--policy, --environment-kind)
      gatehouse key-attestation verify --chain FILE ...
                                                         judge an Android key attestation chain offline under Google's
                                                         roots, a policy and a status list (JSON on stdout)
      gatehouse simulate --endpoint URL --api-key pk_… ...
                                                         play a phone (Android or iOS) against a running server
      gatehouse COMMAND --help                           the options of a command

    Every option also reads a GATEHOUSE_* environment variable; a flag wins.
    """

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        guard let command = arguments.first else {
            print(usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "--help", "-h", "help":
                print(usage)
                return 0
            case "serve":
                if rest.contains("--help") {
                    return help("gatehouse serve [options]", "Serves the dashboard, the management and ingest APIs, /healthz, /readyz and /metrics.",
                                options: Serve.helpText)
                }
                return try Serve.run(rest, environment: environment)
            case "migrate":
                if rest.contains("--help") { return help("gatehouse migrate [options]", "Applies pending migrations from Migrations/ and exits.") }
                let (configuration, _, _) = try DomainConfiguration.parse(rest, environment: environment)
                let status = try openDomain(configuration).database.migrationStatus()
                let location = configuration.location
                print("\(location.isPostgres ? "" : "database ")\(location.redacted): \(status.applied.count) migrations applied, \(status.pending.count) pending")
                return 0
            case "admin":
                return try admin(rest, environment: environment)
            case "token":
                return try token(rest, environment: environment)
            case "app-attest":
                return AppAttestCommand.run(rest)
            case "play-integrity":
                return PlayIntegrityCommand.run(rest)
            case "key-attestation":
                return KeyAttestationCommand.run(rest)
            case "caches":
                guard rest.first == "reset" else {
                    fail("usage: gatehouse caches reset [options]")
                    return 2
                }
                if rest.contains("--help") {
                    return help("gatehouse caches reset [options]", "Moves every revision on, so that every server of a PostgreSQL database forgets what it cached within a second: run it after changing Gatehouse's tables with SQL by hand (such changes move no revision). On SQLite, restart gatehouse serve instead: it holds the file alone and reads no revisions.")
                }
                let (configuration, _, _) = try DomainConfiguration.parse(Array(rest.dropFirst()), environment: environment)
                guard configuration.location.isPostgres else {
                    throw ConfigurationError("on SQLite one gatehouse serve holds the file and follows no revisions: restart it to forget what it cached")
                }
                try openDomain(configuration).database.announceOutsideChanges()
                print("every server of \(configuration.location.redacted) forgets what it cached within a second")
                return 0
            case "receipts":
                return try ReceiptsCommand.run(rest, environment: environment)
            case "simulate":
                return SimulateCommand.run(rest)
            case "backup":
                if rest.contains("--help") { return help("gatehouse backup FILE [options]", "Copies a consistent snapshot of the database to FILE through SQLite's online backup, while the server keeps serving.") }
                let (configuration, _, positional) = try DomainConfiguration.parse(rest, environment: environment, positional: 1)
                guard !configuration.location.isPostgres else {
                    throw ConfigurationError("gatehouse backup copies a SQLite database; back up PostgreSQL with pg_dump (or your provider's snapshots)")
                }
                guard let file = positional.first else { throw ConfigurationError("backup needs the file to write: gatehouse backup FILE") }
                guard !FileManager.default.fileExists(atPath: file) else { throw ConfigurationError("\(file) exists already; name a new file") }
                try openDomain(configuration).database.backup(to: file)
                print("backup written to \(file)")
                return 0
            default:
                fail("unknown command \(command)\n\n\(usage)")
                return 2
            }
        } catch let error as ConfigurationError {
            fail(error.description)
            return 2
        } catch let error as StoreError {
            fail(error.description)
            switch error {
            case .cannotOpen, .newerThanCode: return 2
            case .wrongMasterKey: return 1
            }
        } catch let error as ValidationError {
            fail(error.errors.map { "\($0.pointer.dropFirst()): \($0.message)" }.joined(separator: "\n"))
            return 1
        } catch {
            fail("\(error)")
            return 1
        }
    }

    /// The domain alone, for a one-shot command: no templates, no routes, no receipt key made, no background work.
    static func openDomain(_ configuration: DomainConfiguration) throws -> Domain {
        try Domain.open(configuration, log: commandLog)
    }

    /// The domain's lines for a person at a terminal: one line each on standard error, fields as `name=value`.
    static let commandLog = DomainLog { level, message, fields in
        let prefix = switch level {
        case .info: ""
        case .warning: "warning: "
        case .error: "error: "
        }
        fail(prefix + message + fields.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined())
    }

    /// Prints a command's help: its synopsis, what it does, its own options (`extra`), then `options` (the domain's
    /// unless the command takes more).
    static func help(_ synopsis: String, _ summary: String, extra: String = "",
                     options: String = ConfigurationOption.helpText(DomainConfiguration.options)) -> Int32 {
        print("Usage: \(synopsis)\n\n\(summary)\n\n\(extra)Options:\n\(options)")
        return 0
    }

    static func fail(_ message: String) {
        FileHandle.standardError.write(Data("gatehouse: \(message)\n".utf8))
    }

    /// The options of an offline command (no domain, no `GATEHOUSE_*` variables): `values` take a value, the last
    /// one given wins; `repeatable` ones are kept in order; `switches` take none.
    /// - Throws: `ConfigurationError` for an unknown option or a missing value.
    static func options(_ arguments: [String], values: [String], repeatable: [String] = [], switches: [String] = []) throws -> ConfigurationValues {
        try ConfigurationValues.parse(arguments, environment: [:], options: ConfigurationOption.command(values: values, repeatable: repeatable, switches: switches),
                                      positional: 0).0
    }

    /// A provider's policy given to an offline command as `--policy JSON|@FILE`: parsed, then read by the same
    /// fields the management API reads an environment's policy with (`apply`), starting from `policy`.
    /// - Throws: `ConfigurationError` naming the first field at fault by its JSON pointer.
    static func policy<Policy>(_ text: String, from policy: Policy,
                               apply: (JSON, String, inout Policy, inout FieldErrors) -> Void) throws -> Policy {
        let source = text.hasPrefix("@") ? String(decoding: try AppAttestCommand.readFile(String(text.dropFirst())), as: UTF8.self) : text
        let json: JSON
        do {
            json = try JSONParser.parse(source)
        } catch {
            throw ConfigurationError("--policy is not JSON: \(error.message)")
        }
        var policy = policy
        var errors = FieldErrors()
        apply(json, "", &policy, &errors)
        if let first = errors.errors.first {
            throw ConfigurationError("--policy: \(first.pointer.isEmpty ? "the policy" : first.pointer) \(first.message)")
        }
        return policy
    }

    static func admin(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        guard arguments.first == "create" else { throw ConfigurationError("usage: gatehouse admin create --email E [--role owner|editor|viewer]") }
        if arguments.contains("--help") {
            return help("gatehouse admin create --email E [--role owner|editor|viewer] [options] < password", "Creates an admin (default role owner). The password (at least 12 characters) is read from standard input, one line.",
                        extra: "  --email E              the admin's e-mail\n  --role ROLE            owner (default), editor or viewer\n")
        }
        let (configuration, own, _) = try DomainConfiguration.parse(Array(arguments.dropFirst()), environment: environment,
                                                                    extra: ConfigurationOption.command(values: ["--email", "--role"]))
        guard let email = own["--email"] else { throw ConfigurationError("--email is required") }
        guard let role = Admin.Role(rawValue: own["--role"] ?? "owner") else { throw ConfigurationError("--role must be owner, editor or viewer") }
        guard let line = readLine(strippingNewline: true) else { throw ConfigurationError("give the password on standard input") }
        let admin = try openDomain(configuration).admins.create(email: email, password: line, role: role, actor: .system)
        print("admin \(admin.email) created (\(admin.role.rawValue))")
        return 0
    }

    static func token(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        guard arguments.first == "create" else { throw ConfigurationError("usage: gatehouse token create --name N --scope read|write") }
        if arguments.contains("--help") {
            return help("gatehouse token create --name N --scope read|write [options]", "Creates a management API token and prints it once on standard output (only its hash is kept).",
                        extra: "  --name N               what the token is for\n  --scope S              read or write\n")
        }
        let (configuration, own, _) = try DomainConfiguration.parse(Array(arguments.dropFirst()), environment: environment,
                                                                    extra: ConfigurationOption.command(values: ["--name", "--scope"]))
        guard let name = own["--name"] else { throw ConfigurationError("--name is required") }
        guard let scope = ManagementToken.Scope(rawValue: own["--scope"] ?? "") else { throw ConfigurationError("--scope must be read or write") }
        let (_, secret) = try openDomain(configuration).tokens.create(name: name, scope: scope, actor: .system)
        print(secret)
        return 0
    }
}
