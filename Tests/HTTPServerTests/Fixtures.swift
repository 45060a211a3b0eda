import TestSupport
import Glibc
import HTTP
import Synchronization
@testable import HTTPServer

/// Starts a server on 127.0.0.1 port 0 with the given tweaks; the caller shuts it down with `stop()`.
func startServer(
    ioThreads: Int = 2, workerThreads: Int = 4, workerQueueLimit: Int = 64, limits: HTTPLimits = HTTPLimits(),
    shutdownTimeout: Duration = .seconds(5), logger: Logger = .discard,
    responder: @escaping @Sendable (Request) -> Response
) throws -> Server {
    let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: ioThreads,
                                            workerThreads: workerThreads, workerQueueLimit: workerQueueLimit,
                                            limits: limits, shutdownTimeout: shutdownTimeout)
    let server = Server(configuration: configuration, responder: responder, logger: logger)
    try server.start()
    return server
}

extension Server {
    /// Shuts down and waits, for the end of a test.
    func stop() {
        shutdown()
        wait()
    }
}

/// Echoes method, path and body so tests can see what arrived.
@Sendable func echo(_ request: Request) -> Response {
    var response = Response(status: 200, contentType: "text/plain",
                            body: request.method + " " + request.target + "\n")
    response.body.append(contentsOf: request.body)
    return response
}

/// A latch tests use to hold a handler until they let it go.
final class Gate: Sendable {
    private let isOpen = Mutex(false)

    func open() { isOpen.withLock { $0 = true } }

    /// Blocks (polling) until opened or `seconds` pass; true when opened.
    @discardableResult
    func wait(seconds: Double = 10) -> Bool {
        waitUntil(seconds: seconds) { isOpen.withLock { $0 } } != nil
    }
}

/// A thread-safe counter and list, for observing handlers and logs.
final class Recorder: Sendable {
    private let items = Mutex<[String]>([])

    func append(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

