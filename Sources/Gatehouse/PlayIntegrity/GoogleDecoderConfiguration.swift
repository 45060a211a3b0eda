/// Where and how ``GoogleDecoder`` reaches Google (`--play-integrity-endpoint`, `--outbound-ca-file`).
public struct GoogleDecoderConfiguration: Sendable, Equatable {
    /// Google's production Play Integrity API.
    public static let defaultEndpoint = "https://playintegrity.googleapis.com"

    /// The API's base URL, https; `POST {endpoint}/v1/{packageName}:decodeIntegrityToken` is called.
    public var endpoint: String
    /// A PEM file of CAs to trust instead of the system's (tests, private deployments). Verification stays on.
    public var caFile: String?
    /// The most one decode may take, the access-token request included (DEVICE-API: 10 seconds).
    public var timeout: Duration
    /// The most decodes at once (each makes one or two calls to Google, or waits for another's token request); more
    /// wait up to ``queueTimeout`` and then are `googleUnreachable`, so a slow Google holds at most this many request
    /// workers.
    public var maxConcurrentCalls: Int
    /// How long a decode waits for one of the ``maxConcurrentCalls`` slots before it is `googleUnreachable`.
    public var queueTimeout: Duration
    /// Where a service account's `token_uri` may point; any other is `serviceAccountRejected`, with no call.
    public var tokenEndpoints: TokenEndpoints

    /// Settings with defaults: Google's endpoint, the system's CAs, 10 s, 8 calls, 250 ms queueing, Google's token
    /// endpoint only.
    public init(endpoint: String = GoogleDecoderConfiguration.defaultEndpoint, caFile: String? = nil,
                timeout: Duration = .seconds(10), maxConcurrentCalls: Int = 8, queueTimeout: Duration = .milliseconds(250),
                tokenEndpoints: TokenEndpoints = TokenEndpoints()) {
        self.tokenEndpoints = tokenEndpoints
        self.endpoint = endpoint
        self.caFile = caFile
        self.timeout = timeout
        self.maxConcurrentCalls = maxConcurrentCalls
        self.queueTimeout = queueTimeout
    }
}
