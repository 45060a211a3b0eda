/// Every limit of the HTTP layer in one place. The parser enforces the byte and count limits; the server enforces
/// the timeouts and the connection cap. Going over a limit ends the request with the status named on each field,
/// then the connection is closed.
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request line (method, target and version, without CRLF). Over it: 414 URI Too Long.
    public var maxRequestLineBytes: Int
    /// Most bytes in the header section (field lines with their CRLFs, not the request line). Over it: 431.
    /// The same budget applies separately to the trailer section of a chunked body.
    public var maxHeaderBytes: Int
    /// Most header field lines in one request (and, separately, trailer lines). Over it: 431.
    public var maxHeaderCount: Int
    /// Largest request body, declared by `Content-Length` or accumulated from chunks. Over it: 413.
    public var maxBodyBytes: Int
    /// Longest chunk-size line of a chunked body (size and ignored extensions, without CRLF). Over it: 400.
    public var maxChunkSizeLineBytes: Int
    /// Time allowed from a connection's first byte of a request to the end of its header section (slowloris).
    public var headerTimeout: Duration
    /// Time allowed to receive a request's body once its head is complete.
    public var bodyTimeout: Duration
    /// How long an idle keep-alive connection is kept open waiting for the next request.
    public var keepAliveIdleTimeout: Duration
    /// Most connections served at once; further ones are refused until some close.
    public var maxConnections: Int

    /// Limits with the defaults above: 8 KiB request line, 16 KiB / 100 header fields, 1 MiB body,
    /// 1 KiB chunk-size line, 10 s for the head, 30 s for the body, 60 s idle, 10 000 connections.
    public init(
        maxRequestLineBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 16 * 1024,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1024 * 1024,
        maxChunkSizeLineBytes: Int = 1024,
        headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(30),
        keepAliveIdleTimeout: Duration = .seconds(60),
        maxConnections: Int = 10_000
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkSizeLineBytes = maxChunkSizeLineBytes
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.keepAliveIdleTimeout = keepAliveIdleTimeout
        self.maxConnections = maxConnections
    }
}
