import Foundation
import ChildProcess
import TestSupport
import Glibc
import HTTP
import Testing
@testable import HTTPServer

@Suite("Server over loopback")
struct ServerTests {
    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        let server = try startServer(responder: echo)
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse()
        try client.send("GET /two HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = try client.readResponse()
        #expect(first.status == 200 && first.text == "GET /one\n")
        #expect(second.status == 200 && second.text == "GET /two\n")
        #expect(first.headers["Connection"] == nil)
        #expect(first.headers["Date"] != nil)
    }

    @Test func requestsCarryAnIDAndTheRemoteAddress() throws {
        let server = try startServer { request in
            Response(status: 200, contentType: "text/plain", body: request.id + " " + (request.remoteAddress ?? "-"))
        }
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse().text.split(separator: " ")
        let second = try client.readResponse().text.split(separator: " ")
        #expect(first.count == 2 && first[1] == "127.0.0.1")
        #expect(first[0].count == 16 && first[0].allSatisfy(\.isHexDigit))
        #expect(first[0] != second[0])
    }

    /// Handlers run on threads under SCHED_BATCH (3 on Linux): woken, they do not preempt the running thread.
    @Test func handlersRunUnderBatchScheduling() throws {
        let server = try startServer { _ in Response(status: 200, contentType: "text/plain", body: "\(sched_getscheduler(0))") }
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("GET /policy HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "3")
    }

    @Test func largeResponsesSurvivePartialWrites() throws {
        // 8 MiB is far more than a loopback socket buffer: the loop must finish it on EPOLLOUT, in order.
        let big = (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let server = try startServer { request in
            request.path == "/big" ? Response(status: 200, headers: ["Content-Type": "application/octet-stream"], body: big)
                : echo(request)
        }
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        let reply = try client.readResponse()
        #expect(reply.body.count == big.count)
        #expect(reply.body == big)
        #expect(try client.readResponse().text == "GET /after\n")
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        // The first handler is the slowest: responses must still come back in request order.
        let server = try startServer { request in
            if request.path == "/1" { usleep(50_000) }
            return echo(request)
        }
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\nGET /3 HTTP/1.1\r\nHost: x\r\n\r\n")
        let texts = try (0..<3).map { _ in try client.readResponse().text }
        #expect(texts == ["GET /1\n", "GET /2\n", "GET /3\n"])
    }

    @Test func chunkedUploadIsEchoed() throws {
        let server = try startServer(responder: echo)
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        try client.send("6\r\n world\r\n0\r\n\r\n")
        let reply = try client.readResponse()
        #expect(reply.status == 200)
        #expect(reply.text == "POST /up\nhello world")
    }

    @Test func expectContinueGets100ThenTheResponse() throws {
        let server = try startServer(responder: echo)
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readResponse()
        #expect(interim.status == 100)
        try client.send("data")
        let reply = try client.readResponse()
        #expect(reply.status == 200)
        #expect(reply.text == "POST /e\ndata")
    }

    @Test(arguments: Oversize.allCases)
    func oversizeRequestsGetTheirStatusThenClose(_ oversize: Oversize) throws {
        let server = try startServer(responder: echo)
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try? client.send(oversize.request)
        let reply = try client.readResponse()
        #expect(reply.status == oversize.status)
        #expect(reply.headers["Connection"] == "close")
        #expect(reply.headers["Content-Type"] == "application/problem+json")
        #expect(client.waitForClose())
    }

    @Test func malformedRequestGetsProblemAndClose() throws {
        let server = try startServer(responder: echo)
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx")
        let reply = try client.readResponse()
        #expect(reply.status == 400)
        #expect(reply.text.contains("\"status\":400"))
        #expect(client.waitForClose())
    }

    @Test func headRequestGetsLengthButNoBody() throws {
        let server = try startServer(responder: echo)
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\nGET /g HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(head: true)
        #expect(head.headers["Content-Length"] == "8")  // "HEAD /h\n"
        // The next response starts right after the head: no body bytes were sent.
        let next = try client.readResponse()
        #expect(next.text == "GET /g\n")
    }

    /// The clients are held by a child process (Tests/EndToEnd/hold_connections.py): the test process neither raises
    /// its file limit nor holds both ends of a thousand connections.
    @Test func aThousandIdleConnectionsDoNotBlockANewClient() throws {
        // Timeouts far past the test's own: on a loaded machine accepting a thousand connections took longer than the
        // 10 s head timeout, which closed the first ones before the last were counted.
        var limits = HTTPLimits()
        limits.headerTimeout = .seconds(600)
        limits.keepAliveIdleTimeout = .seconds(600)
        let server = try startServer(workerThreads: 2, limits: limits, responder: echo)
        defer { server.stop() }
        let errors = try TemporaryDirectory("gatehouse-idle")
        let holder = try ChildProcess("/usr/bin/env", ["python3", Self.holdConnections, "127.0.0.1", String(server.boundPort), "1000"],
                                      standardErrorPath: errors.file("holder.err"))
        defer { holder.kill(SIGKILL); _ = holder.finish(timeout: 10) }
        #expect(holder.readLine(timeout: 120) == "holding 1000", "\(holder.standardError)")
        // Normally a tenth of a second; the whole suite running in parallel on two cores once starved it past 10 s.
        #expect(waitUntil(seconds: 60) { server.openConnections == 1000 } != nil)
        let client = try TestClient(port: server.boundPort)
        try client.send("GET /fresh HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "GET /fresh\n")
        #expect(server.openConnections >= 1000, "the idle connections were dropped to serve the new one")
    }

    /// Tests/EndToEnd/hold_connections.py.
    static let holdConnections = repositoryRoot + "/Tests/EndToEnd/hold_connections.py"

    @Test func maxConnectionsClosesTheExtraOnes() throws {
        let server = try startServer(limits: HTTPLimits(maxConnections: 2), responder: echo)
        defer { server.stop() }
        let a = try TestClient(port: server.boundPort)
        let b = try TestClient(port: server.boundPort)
        #expect(waitUntil(seconds: 5) { server.openConnections == 2 } != nil)
        let c = try TestClient(port: server.boundPort, timeout: 2)
        #expect(c.waitForClose())
        try a.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try a.readResponse().status == 200)
        _ = b
    }

    @Test func shutdownFinishesAnInFlightRequestAndRefusesNewOnes() throws {
        let started = Gate(), release = Gate()
        let server = try startServer { request in
            started.open()
            release.wait(seconds: 60)  // in flight until the test has seen the shutdown refuse new connections
            return echo(request)
        }
        let port = server.boundPort
        let client = try TestClient(port: port)
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(started.wait())
        server.shutdown()
        #expect(throws: TestClient.Failure.connect(ECONNREFUSED)) { try TestClient(port: port) }
        release.open()
        let reply = try client.readResponse()
        #expect(reply.status == 200 && reply.text == "GET /slow\n")
        #expect(reply.headers["Connection"] == "close")
        server.wait()
        #expect(server.openConnections == 0)
    }

    @Test func shutdownIsIdempotentAndWaitReturnsBeforeStart() throws {
        let idle = Server(configuration: ServerConfiguration(port: 0), responder: echo, logger: .discard)
        idle.wait()
        let server = try startServer(responder: echo)
        let port = server.boundPort
        server.shutdown()
        server.shutdown()
        server.wait()
        server.wait()
        #expect(server.openConnections == 0)
        #expect(throws: TestClient.Failure.connect(ECONNREFUSED)) { try TestClient(port: port) }
    }

    @Test func blockingHandlersRunInParallelOnAllWorkers() throws {
        // Each handler waits until all four run at once: that only happens if busy workers do not hold the queue.
        let started = Recorder()
        let server = try startServer(workerThreads: 4) { request in
            started.append(request.path)
            let together = waitUntil(seconds: 5) { started.count >= 4 } != nil
            return Response(status: together ? 200 : 500, contentType: "text/plain", body: request.path)
        }
        defer { server.stop() }
        let clients = try (0..<4).map { _ in try TestClient(port: server.boundPort) }
        for (index, client) in clients.enumerated() {
            try client.send("GET /\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        // 200 from each: all four handlers ran at once (a handler that waited 5 s for the others answers 500).
        let statuses = try clients.map { try $0.readResponse().status }
        #expect(statuses == [200, 200, 200, 200])
    }

    @Test func fullWorkerQueueAnswers503() throws {
        let gate = Gate()
        let running = Recorder()
        let server = try startServer(ioThreads: 1, workerThreads: 1, workerQueueLimit: 1) { request in
            running.append(request.path)
            gate.wait()
            return echo(request)
        }
        defer { server.stop() }
        let first = try TestClient(port: server.boundPort)
        try first.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waitUntil(seconds: 5) { running.count == 1 } != nil)
        let second = try TestClient(port: server.boundPort)
        let third = try TestClient(port: server.boundPort)
        try second.send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n")
        try third.send("GET /third HTTP/1.1\r\nHost: x\r\n\r\n")
        // One of them waits in the queue (the worker is busy), the other finds the queue full.
        var statuses: [Int] = []
        var rejected: TestClient?
        for client in [second, third] {
            client.setTimeout(0.5)
            if let reply = try? client.readResponse() {
                statuses.append(reply.status)
                rejected = client
                #expect(reply.headers["Retry-After"] == "1")
            }
        }
        #expect(statuses == [503])
        gate.open()
        #expect(try first.readResponse().status == 200)
        let queued = rejected === second ? third : second
        queued.setTimeout(5)
        #expect(try queued.readResponse().status == 200)
    }

    @Test func accessLogHasOneJSONLinePerRequestWithoutQuery() throws {
        let lines = Recorder()
        let logger = Logger { lines.append($0) }
        let server = try startServer(logger: logger, responder: echo)
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("GET /logged?token=secret HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try client.readResponse()
        #expect(waitUntil(seconds: 5) { lines.count == 1 } != nil)
        let line = try #require(lines.all.first)
        #expect(line.hasPrefix("{\"ts\":\""))
        #expect(line.contains("\"msg\":\"request\""))
        #expect(line.contains("\"method\":\"GET\""))
        #expect(line.contains("\"path\":\"/logged\""))
        #expect(line.contains("\"status\":200"))
        #expect(line.contains("\"bytes\":25"))
        #expect(line.contains("\"duration_ms\":"))
        #expect(line.contains("\"request_id\":\""))
        #expect(!line.contains("secret"))
    }

    @Test(arguments: ["example.com", "", "1.2.3", "127.0.0.1 ", "::g"])
    func unparsableHostsAreRejected(host: String) {
        let server = Server(configuration: ServerConfiguration(host: host, port: 0), responder: echo, logger: .discard)
        #expect(throws: ServerError.invalidAddress(host)) { try server.start() }
    }

    @Test func aTakenPortIsAnErrorNotAFallback() throws {
        let first = try startServer(responder: echo)
        defer { first.stop() }
        let second = Server(configuration: ServerConfiguration(port: first.boundPort), responder: echo, logger: .discard)
        #expect(throws: ServerError.addressInUse(host: "127.0.0.1", port: first.boundPort)) { try second.start() }
    }

    @Test func localhostAndIPv6LiteralsBind() throws {
        for host in ["localhost", "::1"] {
            let server = Server(configuration: ServerConfiguration(host: host, port: 0), responder: echo, logger: .discard)
            try server.start()
            #expect(server.boundPort > 0)
            server.stop()
        }
    }
}
