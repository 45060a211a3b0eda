import JSON
import Synchronization
import Foundation
import Gatehouse
import GatehouseWeb
import HTTP
import HTTPServer
import ThrowawayPostgres

/// A fresh Gatehouse on a new SQLite file in a temporary folder (or, in `make test`'s PostgreSQL pass, a new database
/// of the throwaway PostgreSQL), driven in-process (no socket) through `send`. Resources (migrations, templates,
/// public files) come from this repository.
public final class TestApp: Sendable {
    public let application: Application
    public let clock: TestClock
    public let directory: String
    /// Every log line the application wrote, to assert that no secret reaches the log.
    public let logLines: LogCapture
    /// The PostgreSQL database of this app in the PostgreSQL pass (dropped with it); nil on SQLite.
    public let postgres: ThrowawayPostgres.Database?

    /// The repository root, found from this file's path.
    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public init(configure: (inout Configuration) -> Void = { _ in }) throws {
        directory = NSTemporaryDirectory() + "gatehouse-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        if ThrowawayPostgres.endToEnd {
            let database = try ThrowawayPostgres.database()
            postgres = database
            configuration.database = database.url
            configuration.masterKey = ThrowawayPostgres.masterKey()
            configuration.databasePreparedStatements = !ThrowawayPostgres.pooled
        } else {
            postgres = nil
            configuration.database = directory + "/gatehouse.sqlite"
        }
        configuration.resources = Self.repositoryRoot
        configure(&configuration)
        clock = TestClock()
        logLines = LogCapture()
        let capture = logLines
        var logger = Logger(minimumLevel: .debug, accessLog: true) { line in capture.append(line) }
        logger.secretPathPrefixes = Application.secretPathPrefixes
        application = try Application(configuration: configuration, logger: logger, clock: clock.injected)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Sends a request through the whole router (middleware included) and returns the response.
    @discardableResult
    public func send(_ method: String, _ target: String, headers: Headers = Headers(), body: [UInt8] = []) -> TestResponse {
        var request = Request(method: method, target: target, headers: headers, body: body)
        request.headers.set("Host", "gatehouse.test")
        if !body.isEmpty && !request.headers.contains("Content-Type") { request.headers.set("Content-Type", "application/json") }
        request.id = UUID().uuidString
        request.remoteAddress = "127.0.0.1"
        return TestResponse(application.respond(request))
    }

    /// Sends a JSON body.
    @discardableResult
    public func send(_ method: String, _ target: String, json: JSON, headers: Headers = Headers()) -> TestResponse {
        send(method, target, headers: headers, body: json.serialized())
    }

    /// Creates a management token directly in the domain and returns its secret.
    public func token(scope: ManagementToken.Scope = .write, name: String = "test") throws -> String {
        try application.domain.tokens.create(name: name, scope: scope, actor: .system).secret
    }
}

/// A response as a test reads it.
public struct TestResponse: Sendable {
    public let response: Response

    public init(_ response: Response) {
        self.response = response
    }

    public var status: Int { response.status }
    public var headers: Headers { response.headers }
    public var text: String { String(decoding: response.body, as: UTF8.self) }
    /// The body as JSON, or nil.
    public var json: JSON? { try? JSONParser.parse(response.body) }
}

/// Collects log lines (thread-safe).
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public func append(_ line: String) { lines.withLock { $0.append(line) } }
    public var all: [String] { lines.withLock { $0 } }
}
