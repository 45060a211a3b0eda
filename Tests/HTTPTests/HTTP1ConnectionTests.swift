import HTTP
import Testing

@Suite("HTTP/1 connection state machine")
struct HTTP1ConnectionTests {
    typealias Driver = HTTP1ConnectionDriver
    static let second = Driver.second
    static let continueText = "HTTP/1.1 100 Continue\r\n\r\n"

    static func get(_ path: String, _ extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: x\r\n\(extra)\r\n"
    }

    @Test func keepAliveServesRequestsOneAfterAnother() {
        var d = Driver()
        d.receive(Self.get("/1"))
        #expect(d.paths == ["/1"])
        #expect(d.deadline == nil, "no timer while a worker has the request")
        d.respond()
        #expect(d.text == "R/1;")
        #expect(d.deadline == d.now + 30 * Self.second, "the idle timeout runs between requests")
        d.now += 5 * Self.second
        d.receive(Self.get("/2"))
        d.respond()
        #expect(d.paths == ["/1", "/2"])
        #expect(d.text == "R/1;R/2;")
        #expect(!d.closed && !d.outputShut)
        #expect(d.violations == [])
    }

    @Test func pipelinedRequestsAreSubmittedOneAtATimeInOrder() {
        var d = Driver()
        d.receive(Self.get("/1") + Self.get("/2") + Self.get("/3"))
        #expect(d.paths == ["/1"])
        d.room = 2
        d.respond()
        #expect(d.paths == ["/1"], "the next request waits until the response is written")
        #expect(d.interest == (read: true, write: true))
        d.drain()
        #expect(d.paths == ["/1", "/2"])
        d.respond()
        d.respond()
        #expect(d.text == "R/1;R/2;R/3;")
        #expect(d.violations == [])
    }

    @Test func readingPausesWhileTooManyRequestsWait() {
        var d = Driver()
        d.receive(String(repeating: Self.get("/p"), count: 40))
        #expect(d.interest.read == false)
        for _ in 0..<8 { d.respond() }
        #expect(d.submitted.count == 9)
        #expect(d.interest.read == true, "31 waiting: below the cap again")
        #expect(d.violations == [])
    }

    @Test(arguments: [
        (HTTP1ConnectionTests.get("/a"), true),
        (HTTP1ConnectionTests.get("/a", "Connection: close\r\n"), false),
        ("GET /a HTTP/1.0\r\n\r\n", false),
        ("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
    ])
    func connectionCloseAndHTTP10EndTheConnectionAfterTheResponse(request: String, keepAlive: Bool) throws {
        var d = Driver()
        d.receive(request + Self.get("/next"))
        let first = try #require(d.submitted.first)
        #expect(first.keepAlive == keepAlive)
        d.respond(keepAlive: first.keepAlive)
        if keepAlive {
            #expect(d.paths == ["/a", "/next"])
            #expect(!d.outputShut)
        } else {
            #expect(d.paths == ["/a"], "requests behind a closing response are dropped")
            #expect(d.outputShut)
            #expect(d.deadline == d.now + HTTP1Connection.lingerNanoseconds)
            #expect(d.interest == (read: true, write: false), "draining the client's last bytes")
            d.apply(.inputEnded)
            #expect(d.closed)
        }
        #expect(d.text == "R/a;")
        #expect(d.violations == [])
    }

    @Test func expectContinueGets100ThenTheBodyTimeoutRuns() {
        var d = Driver()
        d.now += Self.second
        d.receive("POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        #expect(d.text == Self.continueText)
        #expect(d.deadline == d.now + 20 * Self.second)
        #expect(d.paths == [])
        d.receive("data")
        #expect(d.paths == ["/e"])
        #expect(d.submitted.first?.body == Array("data".utf8))
        #expect(d.violations == [])
    }

    @Test func expectContinueBehindARequestInFlightWaitsForItsTurn() {
        var d = Driver()
        d.receive(Self.get("/1") + "POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        #expect(d.text == "")
        d.respond()
        #expect(d.text == "R/1;" + Self.continueText)
        d.receive("hi")
        #expect(d.paths == ["/1", "/e"])
        #expect(d.violations == [])
    }

    /// A phase of the connection and the timer that guards it.
    enum Timeout: String, CaseIterable {
        case headerBeforeAnyByte, header, body, idle, write

        /// Brings a fresh connection into the phase; returns the expected deadline.
        func setUp(_ d: inout Driver) -> UInt64 {
            let s = HTTP1ConnectionTests.second
            switch self {
            case .headerBeforeAnyByte:
                return d.now + 10 * s
            case .header:
                // A slowloris client: a byte a second does not push the deadline back.
                let start = d.now
                for byte in "GET / HTTP/1.1\r\nHo".utf8 where d.now < start + 9 * s {
                    d.apply(.received([byte]))
                    d.now += s / 2
                }
                return start + 10 * s
            case .body:
                d.receive("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
                return d.now + 20 * s
            case .idle:
                d.receive(HTTP1ConnectionTests.get("/"))
                d.now += 3 * s
                d.respond()
                return d.now + 30 * s
            case .write:
                d.receive(HTTP1ConnectionTests.get("/"))
                d.room = 1
                d.respond()
                d.now += 5 * s
                d.room = 1
                d.apply(.writable)  // progress restarts the write timeout
                return d.now + 20 * s
            }
        }
    }

    @Test(arguments: Timeout.allCases)
    func aPhaseThatOutlastsItsTimeoutEndsTheConnection(_ timeout: Timeout) {
        var d = Driver()
        let deadline = timeout.setUp(&d)
        #expect(d.deadline == deadline)
        d.now = deadline - 1
        d.apply(.tick)
        #expect(!d.closed && d.rejected.isEmpty, "not before the deadline")
        d.now = deadline
        d.apply(.tick)
        if timeout == .header {
            #expect(d.rejected == [408], "part of a head arrived: tell the client why")
            #expect(d.text == "E408;")
            #expect(d.outputShut && !d.closed)
            d.wait(1)
            #expect(d.closed)
        } else {
            #expect(d.closed)
            #expect(d.rejected.isEmpty)
        }
        #expect(d.violations == [])
    }

    @Test func aLingeringConnectionDropsInputAndClosesAtItsDeadline() {
        var d = Driver()
        d.receive(Self.get("/a", "Connection: close\r\n"))
        d.respond(keepAlive: false)
        #expect(d.outputShut)
        d.receive(Self.get("/late"))
        #expect(d.paths == ["/a"])
        d.wait(0.5)
        #expect(!d.closed)
        d.wait(0.5)
        #expect(d.closed)
        #expect(d.violations == [])
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400),
        ("GET / HTTP/1.1\nHost: x\n\n", 400),
        ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n\r\n", 414),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", 413),
        ("GET / HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n", 417),
    ])
    func parseErrorsGetTheirResponseThenClose(request: String, status: Int) {
        var d = Driver(limits: HTTPLimits())
        d.receive(request)
        #expect(d.rejected == [status])
        #expect(d.text == "E\(status);")
        #expect(d.outputShut)
        d.apply(.inputEnded)
        #expect(d.closed)
        #expect(d.violations == [])
    }

    @Test func aParseErrorBehindARequestInFlightIsAnsweredInItsTurn() {
        var d = Driver()
        d.receive(Self.get("/1") + "BAD\n")
        #expect(d.paths == ["/1"] && d.rejected.isEmpty)
        #expect(d.interest.read == false, "input after a parse error is not read")
        d.respond()
        #expect(d.rejected == [400])
        #expect(d.text == "R/1;E400;")
        #expect(d.violations == [])
    }

    @Test func shutdownClosesAnIdleConnectionAtOnce() {
        var d = Driver()
        d.apply(.shutdown)
        #expect(d.closed && d.sent.isEmpty)
    }

    @Test func shutdownFinishesTheRequestInFlightAndDropsThoseBehindIt() {
        var d = Driver()
        d.receive(Self.get("/1") + Self.get("/2"))
        d.apply(.shutdown)
        #expect(!d.closed)
        #expect(d.deadline == nil)
        d.room = 2
        d.respond(keepAlive: true)  // the worker may not have seen the shutdown yet
        #expect(!d.closed, "the response is still being written")
        d.drain()
        #expect(d.text == "R/1;")
        #expect(d.closed && !d.outputShut, "no lingering during shutdown")
        #expect(d.paths == ["/1"])
        #expect(d.violations == [])
    }

    @Test func shutdownEndsALingeringConnection() {
        var d = Driver()
        d.receive(Self.get("/a", "Connection: close\r\n"))
        d.respond(keepAlive: false)
        d.apply(.shutdown)
        #expect(d.closed)
    }

    @Test func endOfInputAnswersWhatIsQueuedThenCloses() {
        var d = Driver()
        d.receive(Self.get("/1") + Self.get("/2"))
        d.apply(.inputEnded)
        #expect(!d.closed)
        d.respond()
        d.respond()
        #expect(d.text == "R/1;R/2;")
        #expect(d.closed && !d.outputShut)
        #expect(d.violations == [])
    }

    @Test func endOfInputOnAQuietConnectionClosesAtOnce() {
        var d = Driver()
        d.receive("GET / HT")
        d.apply(.inputEnded)
        #expect(d.closed)
    }

    @Test func eventsAfterCloseDoNothing() {
        var d = Driver()
        d.apply(.shutdown)
        for event: HTTP1Connection.Event in [.received(Array(Self.get("/").utf8)), .inputEnded, .writable, .written(3),
                                             .responded([1], keepAlive: true), .tick, .shutdown] {
            #expect(d.machine.handle(event, now: d.now + 100 * Self.second).isEmpty)
        }
    }
}
