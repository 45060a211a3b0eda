import HTTP

/// One client connection, owned by one event loop and touched only on that loop's thread.
///
/// It holds the parser state, the parsed-but-unanswered events (pipelining: answered in order, one at a time),
/// unwritten response bytes, and the one timer that applies in its current phase.
final class Connection {
    /// What the connection's deadline stands for.
    enum Timer {
        case none
        /// Waiting for a complete request head (from connect, or from the first byte after a response).
        case header
        /// Waiting for a request body after `100 Continue`.
        case body
        /// Idle between keep-alive requests.
        case idle
        /// A response is stuck in the send buffer (the client does not read).
        case write
        /// Closing: output shut down, draining the client's last bytes.
        case linger
    }

    let fd: Int32
    let id: UInt32
    let remoteAddress: String
    var parser: RequestParser

    /// Parsed events not yet answered, oldest first (`queueHead` indexes the next).
    var queue: [ParseEvent] = []
    var queueHead = 0
    /// A request is with a worker.
    var inFlight = false
    /// Response bytes not yet accepted by the kernel, from `outOffset`.
    var out: [UInt8] = []
    var outOffset = 0
    /// Close once the queued output is written (parse error, `Connection: close`, shutdown).
    var closeAfterWrite = false
    /// The client sent EOF: answer what is queued, then close.
    var peerClosed = false
    /// The parser failed: ignore further input.
    var parserFailed = false
    /// At least one request was taken from this connection (before that, the header timeout runs from connect).
    var served = false

    /// The epoll events currently registered.
    var registered: UInt32
    var wantRead = true
    var wantWrite = false

    var timer: Timer = .header
    var deadline: UInt64

    init(fd: Int32, id: UInt32, remoteAddress: String, limits: HTTPLimits, now: UInt64, registered: UInt32) {
        self.fd = fd
        self.id = id
        self.remoteAddress = remoteAddress
        self.parser = RequestParser(limits: limits)
        self.registered = registered
        self.deadline = now &+ limits.headerTimeout.nanoseconds
    }

    var pendingCount: Int { queue.count - queueHead }

    var hasOutput: Bool { outOffset < out.count }

    /// Nothing parsed, running or being written.
    var isQuiet: Bool { !inFlight && pendingCount == 0 && !hasOutput }

    func popEvent() -> ParseEvent? {
        guard queueHead < queue.count else { return nil }
        let event = queue[queueHead]
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        return event
    }

    func setTimer(_ timer: Timer, _ deadline: UInt64) {
        self.timer = timer
        self.deadline = deadline
    }
}
