import HTTPServer

/// Serving a test app over a real loopback socket, for tests of what only concurrency over the wire shows.
extension TestApp {
    /// A running server of this app on 127.0.0.1 and a free port; `stop()` shuts it down gracefully.
    public final class Served: Sendable {
        let server: Server
        /// The port it listens on.
        public let port: UInt16

        init(server: Server) {
            self.server = server
            port = UInt16(clamping: server.boundPort)
        }

        /// Stops accepting, lets in-flight requests finish, and waits until the server is down.
        public func stop() {
            server.shutdown()
            server.wait()
        }
    }

    /// Starts a server answering with this app on port 0, with `workers` handler threads.
    public func serve(workers: Int = 16) throws -> Served {
        let server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, workerThreads: workers),
                            responder: application.respond, logger: Logger(minimumLevel: .error, accessLog: false) { _ in })
        try server.start()
        return Served(server: server)
    }
}
