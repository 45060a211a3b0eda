import TestSupport
import JSON
import Synchronization
import DomainTesting
import Foundation
import Gatehouse
import GatehouseWeb
import HTTP
import HTTPServer
import ThrowawayPostgres

/// A fresh Gatehouse on a new SQLite file in a temporary folder (or, in `make test`'s PostgreSQL pass, a new database
/// of the throwaway PostgreSQL), driven in-process (no socket) through `send`: the web's application over a
/// ``DomainFixture``. Resources (migrations, templates, public files) come from this repository.
public final class TestApp: Sendable {
    public let application: Application
    /// The domain under the application, with its database, folder and clock.
    public let fixture: DomainFixture
    /// Every log line the application wrote, to assert that no secret reaches the log.
    public let logLines: LogCapture

    /// The clock the domain reads.
    public var clock: TestClock { fixture.clock }
    /// The folder of this app's files (the SQLite database is `gatehouse.sqlite` in it).
    public var directory: String { fixture.directory.path }
    /// The PostgreSQL database of this app in the PostgreSQL pass (dropped with it); nil on SQLite.
    public var postgres: ThrowawayPostgres.Database? { fixture.postgres }

    /// An app on this pass's engine, its clock at 1 795 000 000 (late 2026), with `configure` applied to the
    /// configuration (the domain's half included) before anything opens.
    public init(configure: (inout Configuration) -> Void = { _ in }) throws {
        logLines = LogCapture()
        let capture = logLines
        var logger = Logger(minimumLevel: .debug, accessLog: true) { line in capture.append(line) }
        logger.secretPathPrefixes = Application.secretPathPrefixes
        var configuration = Configuration()
        fixture = try DomainFixture(.ofThisPass, now: 1_795_000_000, systemMonotonic: true, log: logger.domainLog) { domain in
            configuration.domain = domain
            configure(&configuration)
            domain = configuration.domain
        }
        try fixture.domain.receiptKeys.prepare()
        application = try Application(domain: fixture.domain, configuration: configuration, logger: logger)
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
