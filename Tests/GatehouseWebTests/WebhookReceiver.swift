import Crypto
import Foundation
import HTTP
import HTTPServer
import JSON
import Synchronization

/// A webhook receiver on a loopback port: records every request (its Standard Webhooks headers and body) and answers
/// with the status set (200 at first), after a delay when one is set.
final class WebhookReceiver: Sendable {
    private let server: Server
    private let state: State
    /// `http://127.0.0.1:<port>/hooks/gatehouse/secret-part`.
    let url: String
    let port: Int

    /// One request as it came.
    struct Received: Sendable {
        let id: String
        let timestamp: String
        let signature: String
        let contentType: String
        let body: [UInt8]
        var json: JSON? { try? JSONParser.parse(body) }
        var type: String? { json?["type"]?.string }
    }

    final class State: Sendable {
        let received = Mutex<[Received]>([])
        let status = Mutex(200)
        let delay = Mutex<Duration>(.zero)
    }

    init() throws {
        let state = State()
        self.state = state
        server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, workerThreads: 4), responder: { request in
            state.received.withLock {
                $0.append(Received(id: request.headers["webhook-id"] ?? "", timestamp: request.headers["webhook-timestamp"] ?? "",
                                   signature: request.headers["webhook-signature"] ?? "", contentType: request.headers["Content-Type"] ?? "",
                                   body: request.body))
            }
            let delay = state.delay.withLock { $0 }
            if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18) }
            var response = Response(status: state.status.withLock { $0 }, contentType: "text/plain", body: "ok")
            // A redirect names this receiver again: a client that followed it would be counted twice.
            if (300..<400).contains(response.status) { response.headers.set("Location", "/hooks/redirected") }
            return response
        }, logger: Logger(minimumLevel: .error, accessLog: false) { _ in })
        try server.start()
        port = server.boundPort
        url = "http://127.0.0.1:\(server.boundPort)/hooks/gatehouse/secret-part"
    }

    deinit {
        server.shutdown()
        server.wait()
    }

    /// Answers `status` from now on.
    func answer(_ status: Int) { state.status.withLock { $0 = status } }

    /// Waits this long before answering from now on.
    func delay(_ duration: Duration) { state.delay.withLock { $0 = duration } }

    /// Every request so far, in order.
    var received: [Received] { state.received.withLock { $0 } }

    /// Whether `request` carries a valid signature by `secret` (`whsec_…`) among its signatures.
    static func verifies(_ request: Received, secret: String) -> Bool {
        guard secret.hasPrefix("whsec_"), let key = Base64.decode(String(secret.dropFirst(6))) else { return false }
        let expected = Base64.encode(HMACSHA256.authenticate(Array("\(request.id).\(request.timestamp).".utf8) + request.body, key: key))
        return request.signature.split(separator: " ").contains { $0 == "v1,\(expected)" }
    }
}
