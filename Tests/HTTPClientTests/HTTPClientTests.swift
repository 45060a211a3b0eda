import TestSupport
import FakeGoogle
import Foundation
import HTTPClient
import Testing

/// HTTPClient against a fake server over TLS whose certificate comes from a throwaway CA.
@Suite(.needsFakeGoogleTLS)
struct HTTPClientTests {
    let fake: FakeGoogle

    init() throws {
        fake = try FakeGoogle()
    }

    @Test func getsOverTLSWhenTheCAFileTrustsTheServer() throws {
        let response = try fake.client().send(OutboundRequest(method: .get, url: fake.baseURL + "/hello"))
        #expect(response.status == 200)
        #expect(response.body == Array("hello".utf8))
        #expect(response.header("x-fake") == "google")
        #expect(response.header("Content-Type") == "text/plain")
    }

    @Test func sendsMethodHeadersAndBody() throws {
        let client = try fake.client()
        let body = Array(#"{"a":1}"#.utf8)
        let response = try client.send(OutboundRequest(
            method: .post, url: fake.baseURL + "/echo",
            headers: [("Content-Type", "application/json"), ("Authorization", "Bearer secret-value")], body: body))
        #expect(response.status == 200)
        let echoed = try #require(try fake.received().last)
        #expect(echoed.method == "POST")
        #expect(echoed.path == "/echo")
        #expect(echoed.body == #"{"a":1}"#)
        #expect(echoed.headers["authorization"] == "Bearer secret-value")
        #expect(echoed.headers["content-type"] == "application/json")
        #expect(echoed.headers["expect"] == nil)

        _ = try client.send(OutboundRequest(method: .put, url: fake.baseURL + "/echo", body: Array("x".utf8)))
        _ = try client.send(OutboundRequest(method: .delete, url: fake.baseURL + "/echo"))
        _ = try client.send(OutboundRequest(method: .post, url: fake.baseURL + "/echo"))
        let methods = try fake.received().suffix(3).map { "\($0.method) \($0.body)" }
        #expect(methods == ["PUT x", "DELETE ", "POST "])
    }

    @Test func anyStatusIsAResponse() throws {
        let response = try fake.client().send(OutboundRequest(method: .get, url: fake.baseURL + "/missing"))
        #expect(response.status == 404)
    }

    @Test func reusesItsConnection() throws {
        let client = try fake.client()
        let first = try client.send(OutboundRequest(method: .get, url: fake.baseURL + "/hello"))
        let second = try client.send(OutboundRequest(method: .get, url: fake.baseURL + "/hello"))
        #expect(!first.reusedConnection)
        #expect(second.reusedConnection)
    }

    @Test func refusesAServerFromAnUnknownCA() throws {
        // The system's trust store does not know the throwaway CA.
        let client = try HTTPClient(configuration: HTTPClientConfiguration())
        #expect {
            try client.send(OutboundRequest(method: .get, url: fake.baseURL + "/hello"))
        } throws: { error in
            guard case .certificateRejected = error as? HTTPClientError else { return false }
            return true
        }
        #expect(try fake.received().isEmpty)
    }

    @Test func refusesACertificateForAnotherHostName() throws {
        // The certificate names 127.0.0.1 and fake.google.test; "localhost" reaches the same server.
        #expect {
            try fake.client().send(OutboundRequest(method: .get, url: "https://localhost:\(fake.port)/hello"))
        } throws: { error in
            guard case .certificateRejected(let reason) = error as? HTTPClientError else { return false }
            return reason.contains("localhost")
        }
        #expect(try fake.received().isEmpty)
    }

    @Test func timesOut() throws {
        let client = try fake.client { $0.totalTimeout = .milliseconds(300) }
        #expect(throws: HTTPClientError.timedOut) {
            try client.send(OutboundRequest(method: .get, url: fake.baseURL + "/slow?delay=5"))
        }
        // A request's own limit overrides the client's.
        let patient = try fake.client()
        #expect(throws: HTTPClientError.timedOut) {
            try patient.send(OutboundRequest(method: .get, url: fake.baseURL + "/slow?delay=5", timeout: .milliseconds(300)))
        }
    }

    @Test(arguments: ["/bytes", "/stream"])
    func capsTheBody(route: String) throws {
        let client = try fake.client { $0.maxResponseBytes = 1000 }
        let full = try client.send(OutboundRequest(method: .get, url: fake.baseURL + route + "?count=1000"))
        #expect(full.body.count == 1000)
        #expect(throws: HTTPClientError.responseTooLarge(limit: 1000)) {
            try client.send(OutboundRequest(method: .get, url: fake.baseURL + route + "?count=100000"))
        }
        // The handle is still good afterwards.
        #expect(try client.send(OutboundRequest(method: .get, url: fake.baseURL + "/hello")).status == 200)
    }

    @Test func boundsTheCallsInFlight() throws {
        let client = try fake.client {
            $0.maxConcurrentCalls = 2
            $0.queueTimeout = .zero
        }
        let calls = ConcurrentCalls(2) { [fake] _ in
            try? client.send(OutboundRequest(method: .get, url: fake.baseURL + "/hold")).status
        }
        #expect(waitUntil { client.callsInFlight >= 2 } != nil)
        #expect(client.callsInFlight == 2)
        #expect(throws: HTTPClientError.busy) {
            try client.send(OutboundRequest(method: .get, url: fake.baseURL + "/hello"))
        }
        _ = try fake.client().send(OutboundRequest(method: .post, url: fake.baseURL + "/release"))
        #expect(calls.wait())
        #expect(calls.results == [200, 200])
        #expect(client.callsInFlight == 0)
        #expect(try client.send(OutboundRequest(method: .get, url: fake.baseURL + "/hello")).status == 200)
    }

    @Test func reportsAnUnreachableHost() throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused.
        #expect {
            try fake.client().send(OutboundRequest(method: .get, url: "https://127.0.0.1:1/"))
        } throws: { error in
            guard case .unreachable = error as? HTTPClientError else { return false }
            return true
        }
    }

    @Test func refusesRequestsItCannotSendSafely() throws {
        let client = try fake.client()
        for url in ["http://127.0.0.1/", "ftp://x/", "https://a b/", "/relative"] {
            #expect(throws: HTTPClientError.self) { try client.send(OutboundRequest(method: .get, url: url)) }
        }
        #expect {
            try client.send(OutboundRequest(method: .get, url: fake.baseURL + "/hello",
                                            headers: [("Authorization", "Bearer top-secret\r\nX-Injected: 1")]))
        } throws: { error in
            guard case .invalidRequest(let reason) = error as? HTTPClientError else { return false }
            return reason.contains("Authorization") && !reason.contains("top-secret")
        }
        #expect(throws: HTTPClientError.self) {
            try client.send(OutboundRequest(method: .get, url: fake.baseURL, headers: [("Bad Name", "v")]))
        }
        #expect(try fake.received().isEmpty)
    }

    @Test func checksItsConfigurationAtStart() {
        #expect(throws: HTTPClientError.self) {
            try HTTPClient(configuration: HTTPClientConfiguration(caFile: "/nonexistent/ca.pem"))
        }
        #expect(throws: HTTPClientError.self) {
            try HTTPClient(configuration: HTTPClientConfiguration(maxConcurrentCalls: 0))
        }
    }
}
