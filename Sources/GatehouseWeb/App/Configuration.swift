import Foundation
import Gatehouse

/// Everything `gatehouse` is told at start-up, from flags and `GATEHOUSE_*` environment variables (a flag wins).
/// Validated before anything starts, with messages that say what to set.
public struct Configuration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// A SQLite file, or a `postgres://` URL (see ``location``).
    public var database = "gatehouse.sqlite"
    /// The most PostgreSQL connections this server opens (SQLite: unused).
    public var databasePool = 8
    /// Whether PostgreSQL statements are prepared once per connection (default); off behind a pooler in transaction
    /// mode that cannot keep them (pgBouncer before 1.21).
    public var databasePreparedStatements = true
    /// The folder holding `Public/`, `Templates/` and `Migrations/` (see ``findResources()``).
    public var resources = Configuration.findResources()
    /// What an acknowledged change survives: `full` (default, a power cut) or `normal` (a killed process only).
    public var durability: CommitDurability = .full
    /// Base64 of 32 bytes; when unset a key file `<database>.key` beside the database is used (created 0600).
    public var masterKey: String?
    /// Fill a "Demo" environment with a week of verdicts on a fresh database.
    public var demo = false
    /// `open` (default), `off`, or a bearer token that `/metrics` requires.
    public var metrics = "open"
    /// Mark session cookies `Secure` (serve behind TLS).
    public var secureCookies = false
    /// How many reverse proxies in front append to `X-Forwarded-For` (and set `X-Forwarded-Proto`); 0: none is
    /// trusted, the socket peer is the client. `--trust-proxy` is one.
    public var trustedProxies = 0
    /// Whether a reverse proxy is trusted (``trustedProxies`` above 0); setting it trusts one.
    public var trustProxy: Bool {
        get { trustedProxies > 0 }
        set { trustedProxies = newValue ? max(trustedProxies, 1) : 0 }
    }
    /// Log level: debug, info, warning, error.
    public var logLevel = "info"
    /// Threads running handlers. Handlers block on SQLite and argon2 (logins wait their turn for a core), so there
    /// are many more than cores: a burst of logins must leave threads for everything else.
    public var workers = 32
    /// A PEM file of App Attest root certificates replacing Apple's built-in root (tests, private deployments).
    public var appAttestRoots: String?
    /// Device requests per second per client address (token bucket, bursts of twice as many); 0: no limit.
    public var deviceRatePerAddress: Double = 50
    /// Device requests per second per public key (token bucket, bursts of twice as many); 0: no limit.
    public var deviceRatePerKey: Double = 2000
    /// Calls to Google's decodeIntegrityToken one client address may cause per hour (per server); 0: no limit.
    public var googleDecodesPerAddress = GoogleBudget.defaultPerAddress
    /// Google's Play Integrity API base URL (https); replaced by tests and private deployments.
    public var playIntegrityEndpoint = "https://playintegrity.googleapis.com"
    /// A PEM file of CAs trusted for outbound HTTPS (Google) instead of the system's; verification stays on.
    public var outboundCAFile: String?
    /// Where a service account's `token_uri` may point: Google's token endpoint, and these `host[:port]`s.
    public var tokenEndpoints = TokenEndpoints()

    public init() {}

    /// One option: its flag, variable, and help text.
    public struct Option: Sendable {
        public let flag: String
        public let variable: String
        public let help: String
        public let takesValue: Bool
    }

    public static let options: [Option] = [
        Option(flag: "--host", variable: "GATEHOUSE_HOST", help: "address to listen on: an IPv4 or IPv6 literal, or localhost (default 127.0.0.1)", takesValue: true),
        Option(flag: "--port", variable: "GATEHOUSE_PORT", help: "TCP port, 0 picks a free one (default 8080)", takesValue: true),
        Option(flag: "--database", variable: "GATEHOUSE_DATABASE", help: "SQLite file, created when missing (default gatehouse.sqlite), or a postgres:// URL handed to libpq whole for several servers on one PostgreSQL; GATEHOUSE_DATABASE_FILE names a file holding it", takesValue: true),
        Option(flag: "--database-prepared-statements", variable: "GATEHOUSE_DATABASE_PREPARED_STATEMENTS", help: "on (default) or off: off behind a pooler in transaction mode (pgBouncer before 1.21), which cannot keep prepared statements", takesValue: true),
        Option(flag: "--database-pool", variable: "GATEHOUSE_DATABASE_POOL", help: "PostgreSQL connections this server opens at most, 1 to 256 (default 8)", takesValue: true),
        Option(flag: "--durability", variable: "GATEHOUSE_DURABILITY", help: "full (default): every acknowledged change survives a power cut; normal: only a killed process, the last commits roll back on a power cut (SQLite synchronous; PostgreSQL synchronous_commit off)", takesValue: true),
        Option(flag: "--resources", variable: "GATEHOUSE_RESOURCES", help: "folder with Public/, Templates/ and Migrations/ (default: the working directory when it holds them, else the executable's folder or the nearest one above it that does)", takesValue: true),
        Option(flag: "--master-key", variable: "GATEHOUSE_MASTER_KEY", help: "base64 of 32 bytes sealing secrets at rest; GATEHOUSE_MASTER_KEY_FILE names a file holding it (SQLite default: a key file <database>.key, created with mode 0600; PostgreSQL: required, the same on every server)", takesValue: true),
        Option(flag: "--demo", variable: "GATEHOUSE_DEMO", help: "on a fresh database, create a Demo environment with a week of sample verdicts", takesValue: false),
        Option(flag: "--metrics", variable: "GATEHOUSE_METRICS", help: "/metrics access: open (default), off, or a token it requires as Bearer", takesValue: true),
        Option(flag: "--secure-cookies", variable: "GATEHOUSE_SECURE_COOKIES", help: "mark session cookies Secure (when served over TLS)", takesValue: false),
        Option(flag: "--trust-proxy", variable: "GATEHOUSE_TRUST_PROXY", help: "trust X-Forwarded-Proto and the right-most X-Forwarded-For hop, appended by one reverse proxy", takesValue: false),
        Option(flag: "--trusted-proxies", variable: "GATEHOUSE_TRUSTED_PROXIES", help: "how many reverse proxies in a row append to X-Forwarded-For, 1 to 16 (implies --trust-proxy; the client is that many hops from the right)", takesValue: true),
        Option(flag: "--workers", variable: "GATEHOUSE_WORKERS", help: "threads running request handlers (default 32)", takesValue: true),
        Option(flag: "--app-attest-roots", variable: "GATEHOUSE_APP_ATTEST_ROOTS", help: "PEM file of App Attest roots replacing Apple's (tests, private deployments; logged as a warning)", takesValue: true),
        Option(flag: "--google-decodes-per-address", variable: "GATEHOUSE_GOOGLE_DECODES_PER_ADDRESS", help: "calls to Google's decodeIntegrityToken one client address may cause per hour, per server; 0 = no limit (default 100)", takesValue: true),
        Option(flag: "--device-rate-per-address", variable: "GATEHOUSE_DEVICE_RATE_PER_ADDRESS", help: "device API requests per second per client address, bursts of twice as many; 0 = no limit (default 50)", takesValue: true),
        Option(flag: "--device-rate-per-key", variable: "GATEHOUSE_DEVICE_RATE_PER_KEY", help: "device API requests per second per public key, bursts of twice as many; 0 = no limit (default 2000)", takesValue: true),
        Option(flag: "--play-integrity-endpoint", variable: "GATEHOUSE_PLAY_INTEGRITY_ENDPOINT", help: "https base URL of Google's Play Integrity API (default https://playintegrity.googleapis.com; tests point it at a fake)", takesValue: true),
        Option(flag: "--outbound-ca-file", variable: "GATEHOUSE_OUTBOUND_CA_FILE", help: "PEM file of CAs trusted for outbound HTTPS to Google instead of the system's (tests, private deployments)", takesValue: true),
        Option(flag: "--token-uri-hosts", variable: "GATEHOUSE_TOKEN_URI_HOSTS", help: "comma-separated host or host:port a service account's https token_uri may name besides Google's token endpoint (tests, private deployments)", takesValue: true),
        Option(flag: "--log-level", variable: "GATEHOUSE_LOG_LEVEL", help: "debug, info (default), warning or error", takesValue: true),
    ]

    /// Reads flags (`--flag value` or `--flag=value`) over environment variables; returns what is left (positional
    /// arguments and unknown flags are errors except where `positional` allows them).
    public static func parse(_ arguments: [String], environment: [String: String], positional: Int = 0) throws(ConfigurationError) -> (Configuration, [String]) {
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
        var c = Configuration()
        if let v = values["--host"] { c.host = v }
        if let v = values["--port"] {
            guard let p = Int(v), (0...65535).contains(p) else { throw ConfigurationError("--port / GATEHOUSE_PORT must be a number from 0 to 65535, got \(v)") }
            c.port = p
        }
        if values["--database"] == nil, let file = environment["GATEHOUSE_DATABASE_FILE"], !file.isEmpty {
            values["--database"] = try secret(file, "GATEHOUSE_DATABASE_FILE")
        }
        if let v = values["--database"] {
            guard !v.isEmpty else { throw ConfigurationError("--database / GATEHOUSE_DATABASE must name a SQLite file or a postgres:// URL") }
            c.database = v
        }
        if let v = values["--database-pool"] {
            guard let n = Int(v), (1...256).contains(n) else { throw ConfigurationError("--database-pool / GATEHOUSE_DATABASE_POOL must be a number from 1 to 256, got \(v)") }
            c.databasePool = n
        }
        if let v = values["--database-prepared-statements"] { c.databasePreparedStatements = try flag(v, "--database-prepared-statements") }
        if let v = values["--durability"] {
            guard let durability = CommitDurability(rawValue: v.lowercased()) else {
                throw ConfigurationError("--durability / GATEHOUSE_DURABILITY must be full (every acknowledged change survives a power cut) or normal, got \(v)")
            }
            c.durability = durability
        }
        if let v = values["--resources"] { c.resources = v }
        if values["--master-key"] == nil, let file = environment["GATEHOUSE_MASTER_KEY_FILE"], !file.isEmpty {
            values["--master-key"] = try secret(file, "GATEHOUSE_MASTER_KEY_FILE")
        }
        if let v = values["--master-key"], !v.isEmpty { c.masterKey = v }
        if let ambiguity = c.location.ambiguity { throw ConfigurationError("--database: \(ambiguity)") }
        if c.location.isPostgres && c.masterKey == nil {
            throw ConfigurationError("on PostgreSQL every server needs the same master key, which cannot live beside the data: set --master-key / GATEHOUSE_MASTER_KEY (base64 of 32 bytes) or GATEHOUSE_MASTER_KEY_FILE")
        }
        c.demo = try flag(values["--demo"], "--demo")
        if let v = values["--metrics"] { c.metrics = v.isEmpty ? "open" : v }
        c.secureCookies = try flag(values["--secure-cookies"], "--secure-cookies")
        c.trustProxy = try flag(values["--trust-proxy"], "--trust-proxy")
        if let v = values["--trusted-proxies"] {
            guard let n = Int(v), (1...16).contains(n) else {
                throw ConfigurationError("--trusted-proxies / GATEHOUSE_TRUSTED_PROXIES must be a number from 1 to 16 (the reverse proxies in a row in front of the server), got \(v)")
            }
            c.trustedProxies = n
        }
        if let v = values["--workers"] {
            guard let n = Int(v), (1...1024).contains(n) else { throw ConfigurationError("--workers / GATEHOUSE_WORKERS must be a number from 1 to 1024, got \(v)") }
            c.workers = n
        }
        if let v = values["--app-attest-roots"], !v.isEmpty { c.appAttestRoots = v }
        if let v = values["--play-integrity-endpoint"], !v.isEmpty {
            guard v.lowercased().hasPrefix("https://"), v.count > "https://".count else {
                throw ConfigurationError("--play-integrity-endpoint / GATEHOUSE_PLAY_INTEGRITY_ENDPOINT must be an https:// URL, got \(v)")
            }
            c.playIntegrityEndpoint = v
        }
        if let v = values["--outbound-ca-file"], !v.isEmpty { c.outboundCAFile = v }
        if let v = values["--token-uri-hosts"] {
            let hosts = v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard hosts.allSatisfy({ host in !host.contains("/") && !host.contains("@") }) else {
                throw ConfigurationError("--token-uri-hosts / GATEHOUSE_TOKEN_URI_HOSTS takes host or host:port names separated by commas, got \(v)")
            }
            c.tokenEndpoints = TokenEndpoints(extraHosts: hosts)
        }
        if let v = values["--google-decodes-per-address"] {
            guard let n = Int(v), (0...1_000_000).contains(n) else {
                throw ConfigurationError("--google-decodes-per-address / GATEHOUSE_GOOGLE_DECODES_PER_ADDRESS must be a number from 0 (no limit) to 1000000, got \(v)")
            }
            c.googleDecodesPerAddress = n
        }
        c.deviceRatePerAddress = try rate(values["--device-rate-per-address"], "--device-rate-per-address / GATEHOUSE_DEVICE_RATE_PER_ADDRESS") ?? c.deviceRatePerAddress
        c.deviceRatePerKey = try rate(values["--device-rate-per-key"], "--device-rate-per-key / GATEHOUSE_DEVICE_RATE_PER_KEY") ?? c.deviceRatePerKey
        if let v = values["--log-level"] {
            guard ["debug", "info", "warning", "error"].contains(v) else { throw ConfigurationError("--log-level must be debug, info, warning or error") }
            c.logLevel = v
        }
        return (c, rest)
    }

    /// The trimmed contents of the file `path` named by `variable` (a secret mounted into a container).
    static func secret(_ path: String, _ variable: String) throws(ConfigurationError) -> String {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("\(variable) names \(path), which cannot be read")
        }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty else { throw ConfigurationError("\(variable) names \(path), which is empty") }
        return value
    }

    static func rate(_ value: String?, _ name: String) throws(ConfigurationError) -> Double? {
        guard let value else { return nil }
        guard let n = Double(value), n.isFinite, (0...1_000_000).contains(n) else {
            throw ConfigurationError("\(name) must be a number of requests per second from 0 (no limit) to 1000000, got \(value)")
        }
        return n
    }

    static func flag(_ value: String?, _ name: String) throws(ConfigurationError) -> Bool {
        switch value?.lowercased() {
        case nil, "", "0", "false", "no", "off": return false
        case "1", "true", "yes", "on": return true
        default: throw ConfigurationError("\(name) takes true or false")
        }
    }

    /// Where `Public/`, `Templates/` and `Migrations/` are when `--resources` does not say: the working directory when
    /// it holds all three (a checkout), else the folder of the executable or the nearest folder above it that does (an
    /// installed binary with them beside it, as the Docker image has, or a build tree's binary run from anywhere);
    /// the working directory when none does (start-up then names what it cannot read).
    public static func findResources(workingDirectory: String = FileManager.default.currentDirectoryPath,
                                     executable: String = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path) -> String {
        func holdsResources(_ folder: String) -> Bool {
            ["Public", "Templates", "Migrations"].allSatisfy { name in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder) && isFolder.boolValue
            }
        }
        if holdsResources(workingDirectory) { return workingDirectory }
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<6 where folder.path != "/" {
            if holdsResources(folder.path) { return folder.path }
            folder.deleteLastPathComponent()
        }
        return workingDirectory
    }

    /// The database `--database` names: a SQLite file or a PostgreSQL URL (``DatabaseLocation/redacted`` for logs).
    public var location: DatabaseLocation { DatabaseLocation(database) }

    /// Where the master key file lives when no key is given: beside the database.
    public var publicDirectory: String { resources + "/Public" }
    public var templatesDirectory: String { resources + "/Templates" }
    public var migrationsDirectory: String { resources + "/Migrations" }

    /// The domain's half of this configuration, for ``Domain/open(_:clock:log:)``.
    public var domain: DomainConfiguration {
        var d = DomainConfiguration()
        d.database = database
        d.databasePool = databasePool
        d.databasePreparedStatements = databasePreparedStatements
        d.durability = durability
        d.masterKey = masterKey
        d.migrationsDirectory = migrationsDirectory
        d.appAttestRoots = appAttestRoots
        d.playIntegrityEndpoint = playIntegrityEndpoint
        d.outboundCAFile = outboundCAFile
        d.tokenEndpoints = tokenEndpoints
        d.googleDecodesPerAddress = googleDecodesPerAddress
        return d
    }

    /// The options' help lines.
    public static var helpText: String {
        options.map { o in
            let name = o.flag + (o.takesValue ? " VALUE" : "")
            return "  " + name.padding(toLength: 22, withPad: " ", startingAt: 0) + " " + o.help + " [" + o.variable + "]"
        }.joined(separator: "\n")
    }
}
