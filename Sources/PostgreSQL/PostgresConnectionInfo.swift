import CLibPQ

/// What libpq reads from a connection string (`PQconninfoParse`,
/// https://www.postgresql.org/docs/15/libpq-misc.html): the parts that may be shown (host, port, database, user)
/// and the password, which may not, as libpq itself parsed it, so that a message can be scrubbed of exactly what
/// libpq would send.
public struct PostgresConnectionInfo: Sendable {
    /// The host (or hosts, comma-separated), when given.
    public let host: String?
    /// The port (or ports), when given.
    public let port: String?
    /// The database name, when given.
    public let database: String?
    /// The user name, when given.
    public let user: String?
    /// The password, when the string carries one (never to be shown).
    public let password: String?

    /// Parses `conninfo` (a `postgres://` URL or `key=value` string) as libpq would.
    /// - Throws: ``PostgresError`` with libpq's message, which may quote the string: scrub it before showing it.
    public init(parsing conninfo: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            let text = message.map { String(cString: $0) } ?? "cannot parse the connection string"
            if let message { PQfreemem(message) }
            throw PostgresError(sqlState: nil, text.trimmingTrailingNewlines)
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        host = values["host"] ?? values["hostaddr"]
        port = values["port"]
        database = values["dbname"]
        user = values["user"]
        password = values["password"]
    }
}
