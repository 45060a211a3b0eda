import Glibc
import HTTP

/// Everything the server needs to know to listen and serve: address, threads, queue bound, HTTP limits and the
/// graceful-shutdown budget.
public struct ServerConfiguration: Sendable {
    /// An IPv4 or IPv6 literal, or "localhost" (127.0.0.1). Anything else is `ServerError.invalidAddress`.
    public var host: String
    /// The TCP port; 0 picks a free one (read it back from `Server.boundPort`).
    public var port: Int
    /// Threads running the epoll loops (non-blocking I/O only; never handler code).
    public var ioThreads: Int
    /// Threads running handlers.
    public var workerThreads: Int
    /// Requests that may wait for a worker; when the queue is full new requests get 503.
    public var workerQueueLimit: Int
    /// Byte limits for the parser; timeouts and the connection cap for the server.
    public var limits: HTTPLimits
    /// How long `shutdown()` lets in-flight requests finish before closing everything.
    public var shutdownTimeout: Duration

    /// A configuration; defaults: 127.0.0.1:8080, one I/O thread per core, max(4, 2 × cores) workers,
    /// 1 024 queued requests, default `HTTPLimits`, 10 s to shut down.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        ioThreads: Int = ServerConfiguration.coreCount,
        workerThreads: Int = max(4, 2 * ServerConfiguration.coreCount),
        workerQueueLimit: Int = 1024,
        limits: HTTPLimits = HTTPLimits(),
        shutdownTimeout: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.ioThreads = ioThreads
        self.workerThreads = workerThreads
        self.workerQueueLimit = workerQueueLimit
        self.limits = limits
        self.shutdownTimeout = shutdownTimeout
    }

    /// The number of online processors (at least 1).
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}
