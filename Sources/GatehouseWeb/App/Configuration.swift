import Foundation
import Gatehouse

/// Everything `gatehouse serve` is told at start-up, from flags and `GATEHOUSE_*` environment variables (a flag wins):
/// the domain's half (``DomainConfiguration``: database, master key, resources, trust anchors, outbound endpoints) and
/// the web's (listening, workers, cookies, proxies, rate limits, metrics, logging). Validated before anything starts,
/// with messages that say what to set.
public struct Configuration: Sendable {
    /// What the domain opens with.
    public var domain = DomainConfiguration()
    public var host = "127.0.0.1"
    public var port = 8080
    /// Fill a "Demo" environment with a week of verdicts on a fresh database.
    public var demo = false
    /// `open` (default), `off`, or a bearer token that `/metrics` requires.
    public var metrics = "open"
    /// Serve `POST /bench/echo?bytes=N` (`make bench`'s bare exchange); never in production.
    public var benchEcho = false
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
    /// Device requests per second per client address (token bucket, bursts of twice as many); 0: no limit.
    public var deviceRatePerAddress: Double = 50
    /// Device requests per second per public key (token bucket, bursts of twice as many); 0: no limit.
    public var deviceRatePerKey: Double = 2000

    public init() {}

    /// The web's own options (the domain's come first in ``settings``), each with what its value sets.
    static let webSettings: [Setting<Configuration>] = [
        Setting("--host", "GATEHOUSE_HOST", help: "address to listen on: an IPv4 or IPv6 literal, or localhost (default 127.0.0.1)") { $0.host = $1.text },
        Setting("--port", "GATEHOUSE_PORT", help: "TCP port, 0 picks a free one (default 8080)") { $0.port = try $1.integer(in: 0...65535) },
        Setting("--demo", "GATEHOUSE_DEMO", help: "on a fresh database, create a Demo environment with a week of sample verdicts", takesValue: false) {
            $0.demo = try $1.flag()
        },
        Setting("--metrics", "GATEHOUSE_METRICS", help: "/metrics access: open (default), off, or a token it requires as Bearer") {
            $0.metrics = $1.text.isEmpty ? "open" : $1.text
        },
        Setting("--bench-echo", "GATEHOUSE_BENCH_ECHO", help: "serve POST /bench/echo?bytes=N, which reads the body and answers N bytes: the bare exchange make bench compares the hot paths with (benches only)", takesValue: false) {
            $0.benchEcho = try $1.flag()
        },
        Setting("--secure-cookies", "GATEHOUSE_SECURE_COOKIES", help: "mark session cookies Secure (when served over TLS)", takesValue: false) {
            $0.secureCookies = try $1.flag()
        },
        Setting("--trust-proxy", "GATEHOUSE_TRUST_PROXY", help: "trust X-Forwarded-Proto and the right-most X-Forwarded-For hop, appended by one reverse proxy", takesValue: false) {
            $0.trustProxy = try $1.flag()
        },
        Setting("--trusted-proxies", "GATEHOUSE_TRUSTED_PROXIES", help: "how many reverse proxies in a row append to X-Forwarded-For, 1 to 16 (implies --trust-proxy; the client is that many hops from the right)") {
            $0.trustedProxies = try $1.integer(in: 1...16, meaning: " (the reverse proxies in a row in front of the server)")
        },
        Setting("--workers", "GATEHOUSE_WORKERS", help: "threads running request handlers (default 32)") { $0.workers = try $1.integer(in: 1...1024) },
        Setting("--device-rate-per-address", "GATEHOUSE_DEVICE_RATE_PER_ADDRESS", help: "device API requests per second per client address, bursts of twice as many; 0 = no limit (default 50)") {
            $0.deviceRatePerAddress = try $1.rate()
        },
        Setting("--device-rate-per-key", "GATEHOUSE_DEVICE_RATE_PER_KEY", help: "device API requests per second per public key, bursts of twice as many; 0 = no limit (default 2000)") {
            $0.deviceRatePerKey = try $1.rate()
        },
        Setting("--log-level", "GATEHOUSE_LOG_LEVEL", help: "debug, info (default), warning or error") {
            guard ["debug", "info", "warning", "error"].contains($1.text) else { throw ConfigurationError("--log-level must be debug, info, warning or error") }
            $0.logLevel = $1.text
        },
    ]

    /// Every option of `gatehouse serve`: the domain's and the web's, each named once.
    static let settings = DomainConfiguration.settings.map { $0.within(\Configuration.domain) } + webSettings

    /// Every option of `gatehouse serve`, as the parser and `--help` see them.
    public static var options: [ConfigurationOption] { settings.map(\.option) }

    /// Reads flags (`--flag value` or `--flag=value`) over environment variables; returns what is left (positional
    /// arguments and unknown flags are errors except where `positional` allows them).
    public static func parse(_ arguments: [String], environment: [String: String], positional: Int = 0) throws(ConfigurationError) -> (Configuration, [String]) {
        let (values, rest) = try ConfigurationValues.parse(arguments, environment: environment, options: options, positional: positional)
        var c = Configuration()
        try values.apply(settings, to: &c)
        try c.domain.validate()
        return (c, rest)
    }

    /// The database `--database` names: a SQLite file or a PostgreSQL URL (``DatabaseLocation/redacted`` for logs).
    public var location: DatabaseLocation { domain.location }

    public var publicDirectory: String { domain.resources + "/Public" }
    public var templatesDirectory: String { domain.resources + "/Templates" }

    /// The options' help lines.
    public static var helpText: String { ConfigurationOption.helpText(options) }
}
