import Glibc
import HTTP
import Synchronization

/// The state shared by the event loops and the workers of one server.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let responder: @Sendable (Request) -> Response
    let logger: Logger
    /// Connections accepted and not yet closed, across all loops.
    let openConnections = Atomic<Int>(0)
    /// Set once shutdown begins: responses say `Connection: close`.
    let stopping = Atomic<Bool>(false)

    init(configuration: ServerConfiguration, responder: @escaping @Sendable (Request) -> Response, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
    }

    /// Runs on a worker: calls the responder, serializes the response and queues it in the worker's outbox for the
    /// connection's loop (posted when the worker runs out of work, or every few responses).
    func process(_ item: WorkItem, outbox: inout Outbox) {
        let request = item.request
        let response = responder(request)
        let keepAlive = request.keepAlive && !stopping.load(ordering: .relaxed)
        let headOnly = request.method == "HEAD"
        let bytes = ResponseSerializer.serialize(response, version: request.version, keepAlive: keepAlive,
                                                 headOnly: headOnly, date: outbox.dates.current())
        if logger.accessLog, let line = accessLine(request, status: response.status, bytes: headOnly ? 0 : response.body.count,
                                                     started: item.started) {
            outbox.accessLines.append(line)
        }
        outbox.add(.response(fd: item.fd, id: item.connectionID, bytes: bytes, keepAlive: keepAlive), to: item.loop)
        if outbox.count >= Outbox.limit { outbox.flush() }
    }


    /// Writes one access-log line now.
    func logAccess(_ request: Request, status: Int, bytes: Int, started: UInt64) {
        if let line = accessLine(request, status: status, bytes: bytes, started: started) { logger.write(CollectionOfOne(line)) }
    }

    /// One access-log line: never the query string, nor the rest of a secret path (they may carry secrets).
    func accessLine(_ request: Request, status: Int, bytes: Int, started: UInt64) -> [UInt8]? {
        let elapsed = Double(monotonicNanoseconds() &- started) / 1e6
        return logger.line(.info, "request", [
            "method": .string(request.method), "path": .string(logger.loggable(path: request.path)), "status": .int(status),
            "bytes": .int(bytes), "duration_ms": .double((elapsed * 1000).rounded() / 1000),
            "request_id": .string(request.id), "remote": .string(request.remoteAddress ?? ""),
        ])
    }
}

/// A request travelling to a worker, with the way back to its connection. A class, so that queueing and batching
/// move one reference instead of copying the request's many fields.
final class WorkItem: Sendable {
    let request: Request
    let loop: EventLoop
    let fd: Int32
    let connectionID: UInt32
    let started: UInt64

    init(request: Request, loop: EventLoop, fd: Int32, connectionID: UInt32, started: UInt64) {
        self.request = request
        self.loop = loop
        self.fd = fd
        self.connectionID = connectionID
        self.started = started
    }
}

/// Responses a worker has made but not yet handed to their loops: posting them in groups costs one lock and at
/// most one wake-up per loop instead of one per response. Their access-log lines wait longer, until the worker runs
/// out of work or has `limit` of them, and go out in one write.
struct Outbox {
    static let limit = 16
    let logger: Logger
    private var groups: [(loop: EventLoop, messages: [LoopMessage])] = []
    var accessLines: [[UInt8]] = []

    init(logger: Logger) {
        self.logger = logger
    }
    private(set) var count = 0
    /// This worker's `Date` value (per thread, so workers never contend for it).
    var dates = DateCache()

    mutating func add(_ message: LoopMessage, to loop: EventLoop) {
        count += 1
        if let index = groups.firstIndex(where: { $0.loop === loop }) {
            groups[index].messages.append(message)
        } else {
            groups.append((loop, [message]))
        }
    }

    mutating func flush() {
        for index in groups.indices where !groups[index].messages.isEmpty {
            groups[index].loop.post(contentsOf: groups[index].messages)
            groups[index].messages.removeAll(keepingCapacity: true)
        }
        count = 0
        if accessLines.count >= Self.limit { writeLog() }
    }

    /// Writes the access lines kept so far (when the worker runs out of work, or every `limit` lines).
    mutating func writeLog() {
        logger.write(accessLines)
        accessLines.removeAll(keepingCapacity: true)
    }
}

/// The `Date` header value, formatted at most once per second. One per thread: not shared.
struct DateCache {
    private var seconds = -1
    private var text = ""

    mutating func current() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &spec)
        if spec.tv_sec != seconds {
            seconds = spec.tv_sec
            text = ResponseSerializer.httpDate(epochSeconds: seconds)
        }
        return text
    }
}
