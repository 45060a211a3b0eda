import TestSupport
import Glibc
import HTTP
import Synchronization
import Testing
@testable import HTTPServer

@Suite("Signals")
struct SignalTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalShutsTheServerDownGracefully(signal: Int32) throws {
        let started = Gate(), release = Gate()
        let server = try startServer { request in
            started.open()
            release.wait(seconds: 60)  // in flight until the signal has stopped the server accepting
            return echo(request)
        }
        let thread = Mutex<pthread_t?>(nil)
        let returned = Gate()
        // The signal is sent to this one thread (pthread_kill), which blocks it and reads it through its signalfd,
        // so no other thread of the test process can be hit by it.
        try ThreadStarter.start(name: "signal-test") {
            thread.withLock { $0 = pthread_self() }
            try? server.runUntilSignalled()
            returned.open()
        }
        #expect(waitUntil(seconds: 5) { thread.withLock { $0 } != nil } != nil)
        let client = try TestClient(port: server.boundPort)
        try client.send("GET /busy HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(started.wait())
        let target = try #require(thread.withLock { $0 })
        // Threads from ThreadStarter block SIGINT/SIGTERM from their first instruction, so a signal sent before the
        // signalfd exists stays pending on the thread and is read once it does.
        #expect(pthread_kill(target, signal) == 0)
        // The signal is taken: new connections are refused while the request is still in flight.
        #expect(waitUntil(seconds: 30) { (try? TestClient(port: server.boundPort)) == nil } != nil)
        release.open()
        let reply = try client.readResponse()
        #expect(reply.status == 200 && reply.headers["Connection"] == "close")
        #expect(returned.wait(seconds: 10))
        #expect(throws: TestClient.Failure.connect(ECONNREFUSED)) { try TestClient(port: server.boundPort) }
    }
}
