/// The limits and trust settings of an ``HTTPClient``: all in one place, with defaults fit for calling a Google API
/// from a request handler.
public struct HTTPClientConfiguration: Sendable, Equatable {
    /// How long a TCP + TLS connection may take to set up (`CURLOPT_CONNECTTIMEOUT_MS`). Default 5 s.
    public var connectTimeout: Duration
    /// How long a whole call may take, connection included (`CURLOPT_TIMEOUT_MS`), unless the request sets its own.
    /// Default 10 s.
    public var totalTimeout: Duration
    /// A PEM file of the certificate authorities to trust instead of the system's (`--outbound-ca-file`, for tests
    /// and private deployments). Certificate and host-name verification stay on either way.
    public var caFile: String?
    /// How many calls may be in flight at once; the rest wait up to ``queueTimeout``. Default 8.
    public var maxConcurrentCalls: Int
    /// How long a call waits for a free slot before failing with ``HTTPClientError/busy``. Default 250 ms: a slow
    /// upstream makes callers fail fast instead of piling up on the server's worker pool.
    public var queueTimeout: Duration
    /// The most body bytes a response may have; more (or more than 64 KiB of headers) fails with
    /// ``HTTPClientError/responseTooLarge(limit:)``. Default 1 MiB.
    public var maxResponseBytes: Int
    /// The `User-Agent` sent with every call.
    public var userAgent: String
    /// Whether `http://` URLs are called too (a fake on loopback in tests, given by a flag that says so); otherwise
    /// only `https://`.
    public var allowsPlainHTTP: Bool

    /// Settings with the defaults above, changed by the arguments given.
    public init(
        connectTimeout: Duration = .seconds(5),
        totalTimeout: Duration = .seconds(10),
        caFile: String? = nil,
        maxConcurrentCalls: Int = 8,
        queueTimeout: Duration = .milliseconds(250),
        maxResponseBytes: Int = 1 << 20,
        userAgent: String = "gatehouse",
        allowsPlainHTTP: Bool = false
    ) {
        self.allowsPlainHTTP = allowsPlainHTTP
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.caFile = caFile
        self.maxConcurrentCalls = maxConcurrentCalls
        self.queueTimeout = queueTimeout
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
    }
}
