import Crypto
import Foundation
import HTTPClient

/// What the domain needs to open (docs/architecture.md "The domain's composition"): where the database is and how to use it, the
/// master key, the resources folder (its migrations), the trust anchors, and the outbound endpoints. The one-shot
/// commands parse this alone (``parse(_:environment:positional:)``); the web's configuration embeds it and adds the
/// rest (host, port, workers, cookies, proxies, rate limits).
public struct DomainConfiguration: Sendable {
    /// A SQLite file path, or a `postgres://` URL handed to libpq whole.
    public var database = "gatehouse.sqlite"
    /// The most PostgreSQL connections a server opens (SQLite: unused).
    public var databasePool = 8
    /// Whether PostgreSQL statements are prepared once per connection; off behind a pooler in transaction mode.
    public var databasePreparedStatements = true
    /// What an acknowledged change survives: `full` (a power cut) or `normal` (a killed process only).
    public var durability: CommitDurability = .full
    /// Base64 of 32 bytes; nil: the key file ``keyFilePath`` (SQLite only).
    public var masterKey: String?
    /// The folder holding `Migrations/` (and, for the web, `Public/` and `Templates/`; see ``findResources()``).
    public var resources = DomainConfiguration.findResources()
    /// A PEM file of App Attest root certificates replacing Apple's built-in root (tests, private deployments).
    public var appAttestRoots: String?
    /// A PEM file of roots replacing Apple Root CA - G3 for App Attest receipts (tests, private deployments).
    public var appAttestReceiptRoots: String?
    /// The base URL of Apple's receipt refresh (`…/v1/attestationData`); nil: Apple's production and development
    /// endpoints by the key's kind.
    public var appAttestDataEndpoint: String?
    /// Whether receipts are refreshed in the background (`background`) or only through the management endpoint.
    public var appAttestRefresh: AppleReceiptRefreshMode = .background
    /// Google's Play Integrity API base URL (https).
    public var playIntegrityEndpoint = "https://playintegrity.googleapis.com"
    /// A PEM file of roots replacing Google's key attestation roots (tests, private deployments).
    public var keyAttestationRoots: String?
    /// Where Google's key attestation status list is fetched (`http` allowed, for tests).
    public var keyAttestationStatusURL = KeyAttestationService.googleStatusURL
    /// A PEM file of CAs trusted for outbound HTTPS instead of the system's.
    public var outboundCAFile: String?
    /// Where a service account's `token_uri` may point.
    public var tokenEndpoints = TokenEndpoints()
    /// Calls to Google one client address may cause per hour (per server); 0: no limit.
    public var googleDecodesPerAddress = GoogleBudget.defaultPerAddress
    /// Calls to Google per environment and hour for tokens Google could not decode, across servers; nil: 1 % of the
    /// environment's `playIntegrity.dailyQuota`; 0: no cap.
    public var googleUndecodablePerHour: Int?
    /// How the server names itself to people (`https://gatehouse.example.com`): webhook texts link to the dashboard.
    public var publicURL: String?
    /// Webhooks to `http://` loopback URLs are allowed (tests).
    public var webhookAllowHTTP = false
    /// Webhooks to private, loopback, link-local and unique-local addresses are allowed (deliveries inside a network).
    public var webhookAllowPrivate = false
    /// Per environment and checklist item, at most one event per this many seconds (default an hour).
    public var webhookHold: Int64 = 3_600
    /// Every retry interval of webhook deliveries multiplied by this (tests see a whole cycle in seconds).
    public var webhookRetryScale = 1.0
    /// How webhook hosts are resolved (no flag: tests give a resolver whose answers they change).
    public var resolveHost: @Sendable (String) throws -> [OutboundAddress] = { host in try OutboundAddress.resolve(host: host) }
    /// The cost of argon2id for admins' passwords (no flag: tests make it cheap; a server keeps the default).
    public var passwordHashing = Argon2Parameters.default
    /// Past this many device verdicts, or edge outcomes, waiting to be written, their flush runs at once rather than at
    /// the next second (no flag: tests lower it).
    public var bufferHighWater = 5_000

    public init() {}

    /// The database as a location (a SQLite file or a PostgreSQL URL, shown redacted).
    public var location: DatabaseLocation { DatabaseLocation(database) }

    /// The master key file beside a SQLite database.
    public var keyFilePath: String { database + ".key" }

    /// The folder of migrations (`NNNN_name.sql`, PostgreSQL's in `postgresql/`).
    public var migrationsDirectory: String { resources + "/Migrations" }

    /// The domain's options, as flags and `GATEHOUSE_*` variables, each with what its value sets.
    public static let settings: [Setting<DomainConfiguration>] = [
        Setting("--database", "GATEHOUSE_DATABASE", file: "GATEHOUSE_DATABASE_FILE", help: "SQLite file, created when missing (default gatehouse.sqlite), or a postgres:// URL handed to libpq whole for several servers on one PostgreSQL; GATEHOUSE_DATABASE_FILE names a file holding it") {
            $0.database = try $1.nonEmpty("a SQLite file or a postgres:// URL")
        },
        Setting("--database-prepared-statements", "GATEHOUSE_DATABASE_PREPARED_STATEMENTS", help: "on (default) or off: off behind a pooler in transaction mode (pgBouncer before 1.21), which cannot keep prepared statements") {
            $0.databasePreparedStatements = try $1.flag()
        },
        Setting("--database-pool", "GATEHOUSE_DATABASE_POOL", help: "PostgreSQL connections this server opens at most, 1 to 256 (default 8)") {
            $0.databasePool = try $1.integer(in: 1...256)
        },
        Setting("--durability", "GATEHOUSE_DURABILITY", help: "full (default): every acknowledged change survives a power cut; normal: only a killed process, the last commits roll back on a power cut (SQLite synchronous; PostgreSQL synchronous_commit off)") {
            guard let durability = CommitDurability(rawValue: $1.text.lowercased()) else {
                throw $1.mistake("must be full (every acknowledged change survives a power cut) or normal, got \($1.text)")
            }
            $0.durability = durability
        },
        Setting("--resources", "GATEHOUSE_RESOURCES", help: "folder with Public/, Templates/ and Migrations/ (default: the working directory when it holds them, else the executable's folder or the nearest one above it that does; one-shot commands read only Migrations/)") {
            $0.resources = $1.text
        },
        Setting("--master-key", "GATEHOUSE_MASTER_KEY", file: "GATEHOUSE_MASTER_KEY_FILE", help: "base64 of 32 bytes sealing secrets at rest; GATEHOUSE_MASTER_KEY_FILE names a file holding it (SQLite default: a key file <database>.key, created with mode 0600; PostgreSQL: required, the same on every server)") {
            if !$1.text.isEmpty { $0.masterKey = $1.text }
        },
        Setting("--app-attest-roots", "GATEHOUSE_APP_ATTEST_ROOTS", help: "PEM file of App Attest roots replacing Apple's (tests, private deployments; logged as a warning)") {
            if !$1.text.isEmpty { $0.appAttestRoots = $1.text }
        },
        Setting("--app-attest-receipt-roots", "GATEHOUSE_APP_ATTEST_RECEIPT_ROOTS", help: "PEM file of roots replacing Apple Root CA - G3 for App Attest receipts (tests, private deployments; logged as a warning)") {
            if !$1.text.isEmpty { $0.appAttestReceiptRoots = $1.text }
        },
        Setting("--key-attestation-roots", "GATEHOUSE_KEY_ATTESTATION_ROOTS", help: "PEM file of roots replacing Google's key attestation roots (tests, private deployments; logged as a warning)") {
            if !$1.text.isEmpty { $0.keyAttestationRoots = $1.text }
        },
        Setting("--key-attestation-status-url", "GATEHOUSE_KEY_ATTESTATION_STATUS_URL", help: "URL of Google's key attestation status list, fetched hourly (default https://android.googleapis.com/attestation/status; http allowed for tests)") {
            guard $1.text.hasPrefix("https://") || $1.text.hasPrefix("http://") else { throw $1.mistake("must be an http or https URL, got \($1.text)") }
            $0.keyAttestationStatusURL = $1.text
        },
        Setting("--app-attest-data-endpoint", "GATEHOUSE_APP_ATTEST_DATA_ENDPOINT", help: "https base URL replacing Apple's receipt refresh endpoints (https://data.appattest.apple.com, https://data-development.appattest.apple.com) for tests") {
            if !$1.text.isEmpty { $0.appAttestDataEndpoint = try $1.https() }
        },
        Setting("--app-attest-refresh", "GATEHOUSE_APP_ATTEST_REFRESH", help: "background (default): active keys' receipts are refreshed through Apple once a day; manual: only by the management endpoint") {
            guard let mode = AppleReceiptRefreshMode(rawValue: $1.text.lowercased()) else { throw $1.mistake("must be background or manual, got \($1.text)") }
            $0.appAttestRefresh = mode
        },
        Setting("--google-decodes-per-address", "GATEHOUSE_GOOGLE_DECODES_PER_ADDRESS", help: "calls to Google's decodeIntegrityToken one client address may cause per hour, per server; 0 = no limit (default 100)") {
            $0.googleDecodesPerAddress = try $1.integer(in: 0...1_000_000, meaning: " (0: no limit)")
        },
        Setting("--google-undecodable-per-hour", "GATEHOUSE_GOOGLE_UNDECODABLE_PER_HOUR", help: "calls to Google per environment and hour, across servers, for tokens Google could not decode; past it tokens no local key opens are googleBudgetExceeded until the hour turns; 0 = no cap (default 1 % of the environment's dailyQuota)") {
            $0.googleUndecodablePerHour = try $1.integer(in: 0...1_000_000, meaning: " (0: no cap)")
        },
        Setting("--play-integrity-endpoint", "GATEHOUSE_PLAY_INTEGRITY_ENDPOINT", help: "https base URL of Google's Play Integrity API (default https://playintegrity.googleapis.com; tests point it at a fake)") {
            if !$1.text.isEmpty { $0.playIntegrityEndpoint = try $1.https() }
        },
        Setting("--outbound-ca-file", "GATEHOUSE_OUTBOUND_CA_FILE", help: "PEM file of CAs trusted for outbound HTTPS to Google instead of the system's (tests, private deployments)") {
            if !$1.text.isEmpty { $0.outboundCAFile = $1.text }
        },
        Setting("--public-url", "GATEHOUSE_PUBLIC_URL", help: "the dashboard's address as people reach it (https://gatehouse.example.com): alerts link to it") {
            let text = $1.text.hasSuffix("/") ? String($1.text.dropLast()) : $1.text
            guard text.lowercased().hasPrefix("https://") || text.lowercased().hasPrefix("http://") else { throw $1.mistake("must be an http or https URL, got \($1.text)") }
            $0.publicURL = text
        },
        Setting("--webhook-allow-http", "GATEHOUSE_WEBHOOK_ALLOW_HTTP", help: "allow webhooks to http:// URLs of loopback addresses (tests; needs --webhook-allow-private too)", takesValue: false) {
            $0.webhookAllowHTTP = try $1.flag()
        },
        Setting("--webhook-allow-private", "GATEHOUSE_WEBHOOK_ALLOW_PRIVATE", help: "allow webhooks to private, loopback, link-local and unique-local addresses: whoever can create a webhook can then make this server send requests inside its network", takesValue: false) {
            $0.webhookAllowPrivate = try $1.flag()
        },
        Setting("--webhook-hold", "GATEHOUSE_WEBHOOK_HOLD", help: "seconds during which a checklist item sends no second event, 1 to 86400 (default 3600)") {
            $0.webhookHold = Int64(try $1.integer(in: 1...86_400))
        },
        Setting("--webhook-retry-scale", "GATEHOUSE_WEBHOOK_RETRY_SCALE", help: "multiplies every webhook retry interval (default 1; tests use 0.001 to see three days of retries in seconds)") {
            guard let scale = Double($1.text), scale.isFinite, scale > 0, scale <= 1 else { throw $1.mistake("must be a number above 0, at most 1, got \($1.text)") }
            $0.webhookRetryScale = scale
        },
        Setting("--token-uri-hosts", "GATEHOUSE_TOKEN_URI_HOSTS", help: "comma-separated host or host:port a service account's https token_uri may name besides Google's token endpoint (tests, private deployments)") {
            let hosts = $1.text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard hosts.allSatisfy({ host in !host.contains("/") && !host.contains("@") }) else {
                throw $1.mistake("takes host or host:port names separated by commas, got \($1.text)")
            }
            $0.tokenEndpoints = TokenEndpoints(extraHosts: hosts)
        },
    ]

    /// The domain's options as the parser and `--help` see them.
    public static var options: [ConfigurationOption] { settings.map(\.option) }

    /// The domain's half of a command line with a command's own `extra` options; returns the values (the command
    /// reads its own from them) and the positional arguments, at most `positional` of them.
    /// - Throws: `ConfigurationError` saying what to set.
    public static func parse(_ arguments: [String], environment: [String: String], positional: Int = 0,
                             extra: [ConfigurationOption] = []) throws(ConfigurationError) -> (DomainConfiguration, ConfigurationValues, [String]) {
        let (values, rest) = try ConfigurationValues.parse(arguments, environment: environment, options: options + extra, positional: positional)
        var configuration = DomainConfiguration()
        try values.apply(settings, to: &configuration)
        try configuration.validate()
        return (configuration, values, rest)
    }

    /// What no single option can say: a database location that reads two ways, a PostgreSQL database without a
    /// master key.
    /// - Throws: `ConfigurationError` saying what to set.
    public func validate() throws(ConfigurationError) {
        if let ambiguity = location.ambiguity { throw ConfigurationError("--database: \(ambiguity)") }
        if location.isPostgres && masterKey == nil {
            throw ConfigurationError("on PostgreSQL every server needs the same master key, which cannot live beside the data: set --master-key / GATEHOUSE_MASTER_KEY (base64 of 32 bytes) or GATEHOUSE_MASTER_KEY_FILE")
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
}
