/// Where a service account's `token_uri` may point. The server posts to it an assertion signed with the account's
/// private key, and whoever receives that assertion can trade it at Google for an access token for an hour: so only
/// Google's token endpoint is allowed, plus the hosts an operator names explicitly (`--token-uri-hosts`, for tests
/// and private deployments). Checked when credentials are saved and again before each call.
public struct TokenEndpoints: Sendable, Equatable {
    /// Google's OAuth 2.0 token endpoint, what every downloaded JSON key names.
    public static let google = "https://oauth2.googleapis.com/token"

    /// Further `host` or `host:port` authorities an https `token_uri` may name, lower-cased.
    public let extraHosts: [String]

    /// Google's endpoint, and `https://` URIs on `extraHosts` (`host` or `host:port`, any case).
    public init(extraHosts: [String] = []) {
        self.extraHosts = extraHosts.map { $0.lowercased() }
    }

    /// Whether `uri` is Google's token endpoint or an https URI whose authority is one of ``extraHosts``.
    public func allows(_ uri: String) -> Bool {
        if uri == Self.google { return true }
        guard uri.utf8.count <= 2048, uri.lowercased().hasPrefix("https://") else { return false }
        let authority = uri.dropFirst("https://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
        return !authority.isEmpty && extraHosts.contains(authority)
    }

    /// What the admin is told when `token_uri` is refused.
    public var requirement: String {
        let others = extraHosts.isEmpty ? "" : " (or an https URI on \(extraHosts.joined(separator: ", ")), as --token-uri-hosts allows)"
        return "must be Google's token endpoint \(Self.google)\(others), as in the downloaded JSON key"
    }
}
