/// What the domain needs to open (DESIGN.md "The domain's composition"): where the database is and how to use it, the
/// master key, the trust anchors, and the outbound endpoints. The web's configuration holds the rest (host, port,
/// workers, cookies, proxies, rate limits) and gives this half to ``Domain/open(_:clock:log:)``.
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
    /// The folder of migrations (`NNNN_name.sql`, PostgreSQL's in `postgresql/`).
    public var migrationsDirectory = "Migrations"
    /// A PEM file of App Attest root certificates replacing Apple's built-in root (tests, private deployments).
    public var appAttestRoots: String?
    /// Google's Play Integrity API base URL (https).
    public var playIntegrityEndpoint = "https://playintegrity.googleapis.com"
    /// A PEM file of CAs trusted for outbound HTTPS instead of the system's.
    public var outboundCAFile: String?
    /// Where a service account's `token_uri` may point.
    public var tokenEndpoints = TokenEndpoints()
    /// Calls to Google one client address may cause per hour (per server); 0: no limit.
    public var googleDecodesPerAddress = GoogleBudget.defaultPerAddress

    public init() {}

    /// The database as a location (a SQLite file or a PostgreSQL URL, shown redacted).
    public var location: DatabaseLocation { DatabaseLocation(database) }

    /// The master key file beside a SQLite database.
    public var keyFilePath: String { database + ".key" }
}
