import GatehouseWeb
import HTTPServer

/// A `TestApp` served in-process on a loopback port, so tests talk to it over a real socket while its clock stays
/// the test's. Stops when `stop()` is called or the value goes away.
public final class LoopbackServer: Sendable {
    private let server: Server
    /// The port bound on 127.0.0.1.
    public let port: UInt16

    /// Starts serving `app` on 127.0.0.1, on a free port, with two I/O and four worker threads.
    ///
    /// - Throws: `ServerError` when the socket cannot be bound.
    public init(_ app: TestApp) throws {
        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 2, workerThreads: 4)
        server = Server(configuration: configuration, responder: app.application.respond, logger: app.application.logger)
        try server.start()
        port = UInt16(clamping: server.boundPort)
    }

    /// Shuts down gracefully and waits until the server has stopped.
    public func stop() {
        server.shutdown()
        server.wait()
    }

    deinit {
        stop()
    }
}
