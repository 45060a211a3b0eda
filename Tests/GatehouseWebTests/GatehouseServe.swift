import ChildProcess
import Simulator
import Testing

/// The one way the tests start `gatehouse serve` as a process of its own: ``start(_:log:)`` spawns it on 127.0.0.1
/// and a free port (callers that start several at once spawn them all first), ``client(of:timeout:)`` waits for the
/// line saying where it listens and returns a client for that port.
enum GatehouseServe {
    static let listeningPrefix = "gatehouse listening on http://127.0.0.1:"

    /// `gatehouse serve --host 127.0.0.1 --port 0` followed by `arguments`, its standard error appended to `log`.
    /// - Throws: when the executable cannot be found or spawned.
    static func start(_ arguments: [String], log: String) throws -> ChildProcess {
        try ChildProcess(try CommandRun.gatehouse(), ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments, standardErrorPath: log)
    }

    /// A client of `process` once its first line says where it listens.
    /// - Throws: when no such line comes within `timeout` seconds (the server's log is in the failure).
    static func client(of process: ChildProcess, timeout: Double = 60) throws -> PlainHTTP {
        let line = try #require(process.readLine(timeout: timeout), "no first line from gatehouse serve; its log: \(process.standardError)")
        #expect(line.hasPrefix(listeningPrefix), "first line: \(line)")
        let port = try #require(UInt16(line.dropFirst(listeningPrefix.count)), "no port in \(line)")
        #expect(port != 0)
        return PlainHTTP(loopbackPort: port)
    }
}
