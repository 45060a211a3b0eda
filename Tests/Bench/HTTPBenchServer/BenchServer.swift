import Glibc
import HTTP
import HTTPServer

/// Parses `--port N`, `--io-threads N`, `--workers N` and serves until SIGTERM/SIGINT.
enum BenchServer {
    static func main() {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 18080)
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            guard let value = arguments.popFirst().flatMap({ Int($0) }) else { fail("missing number after \(flag)") }
            switch flag {
            case "--port": configuration.port = value
            case "--io-threads": configuration.ioThreads = value
            case "--workers": configuration.workerThreads = value
            default: fail("unknown flag \(flag)")
            }
        }
        let logger = Logger.standardError(accessLog: false)
        var router = Router()
        router.get("/healthz", healthz)
        let server = Server(configuration: configuration, responder: router.responder(logger: logger), logger: logger)
        do {
            try server.runUntilSignalled()
        } catch {
            fail("\(error)")
        }
        exit(0)
    }

    @Sendable static func healthz(_ request: Request) -> Response {
        Response(status: 200, contentType: "text/plain", body: "ok")
    }

    static func fail(_ message: String) -> Never {
        let line = Array(("HTTPBenchServer: " + message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(1)
    }
}
