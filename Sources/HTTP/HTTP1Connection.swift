import Locks

/// The rules of one server-side HTTP/1.1 connection as a pure state machine: events in, actions out, no I/O.
///
/// The event loop reports what the socket and the workers did (bytes read, end of input, a response ready, how much
/// of a write the kernel took, the clock, shutdown) and carries out the actions it gets back (write these bytes,
/// hand this request to a worker, make the error response for this rejection, shut down output, close, arm the
/// timer, change the epoll interest). Time comes in as monotonic nanoseconds with every event, so tests drive it
/// with a clock of their own.
///
/// It lives in `HTTP`, beside `RequestParser`, because it knows only HTTP: framing comes from the parser,
/// keep-alive from `Request.keepAlive`, timeouts from `HTTPLimits`. Sockets, epoll, the worker pool and logging
/// stay in `HTTPServer`, which makes any module with its own I/O able to reuse these rules.
///
/// The rules:
/// - Pipelined requests are answered in order, one at a time: the next is submitted only once the previous
///   response is fully written. At most `maxPipelined` parsed events wait; beyond that reading pauses.
/// - `Expect: 100-continue` gets `HTTP/1.1 100 Continue` when its turn comes.
/// - A parse error gets its error response (`.reject`), then the connection closes; so does a response that is
///   not keep-alive (`Connection: close`, HTTP/1.0 without keep-alive) and every response after `shutdown`.
/// - One timer per phase (RFC 9112 §9.8 leaves them to the server): the header timeout from the first byte of a
///   request (from connect for the first one) to the end of its head, with a 408 when part of a head arrived
///   (RFC 9110 §15.5.9); the body timeout for a body; the idle timeout between keep-alive requests; the write
///   timeout (the body timeout's length) while a response is stuck in the send buffer. A deadline already running
///   for the phase is kept, so a client trickling bytes cannot push it back. No timer runs while a worker has the
///   request: the handler's time is the server's business.
/// - Closing after a response shuts down output and drains the client's last bytes for `lingerNanoseconds`
///   (RFC 9112 §9.6), so unread input does not turn the close into a reset that destroys the response. After the
///   client's EOF, or during shutdown, the connection closes at once instead.
/// - Write progress: every `.write` is answered with `written(n)`; n short of the bytes (0 when the socket would
///   block) makes the machine wait for `writable`.
public struct HTTP1Connection: Sendable {
    /// Parsed requests a client may have waiting before the connection stops reading.
    public static let maxPipelined = 32
    /// How long a closing connection drains the client's input after shutting down its output.
    public static let lingerNanoseconds: UInt64 = 1_000_000_000
    /// The interim response to `Expect: 100-continue`.
    public static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Something that happened to the connection, for `handle(_:now:into:)`. The loop may instead call the
    /// method of the same name, which avoids copying received bytes.
    public enum Event: Sendable, Equatable {
        /// The socket delivered bytes.
        case received([UInt8])
        /// The client closed its side (EOF).
        case inputEnded
        /// The response to the submitted request (or to a `.reject`) is ready, serialized; `keepAlive` is false
        /// when it said `Connection: close`.
        case responded([UInt8], keepAlive: Bool)
        /// The socket can take more output (EPOLLOUT).
        case writable
        /// The kernel took this many bytes of the last `.write` (0: it would block).
        case written(Int)
        /// The clock moved (the `now` passed along is all it carries).
        case tick
        /// The server is shutting down: finish what is in progress, answer nothing new, close.
        case shutdown
    }

    /// What the loop must do, in order, when an event returns.
    public enum Action: Sendable, Equatable {
        /// Send these bytes now and report with `written(n)`.
        case write(ArraySlice<UInt8>)
        /// Run this request; report its response with `responded`.
        case submit(Request)
        /// Make the error response for this status and reason (logging the rejection); report it with
        /// `responded(_, keepAlive: false)`.
        case reject(HTTPParseError)
        /// Shut down the socket's output (`SHUT_WR`); the connection lingers to drain input.
        case shutdownOutput
        /// Close the socket; the machine is done.
        case close
        /// Report `tick` once the monotonic clock reaches this deadline (it replaces any earlier one).
        case armTimer(deadline: UInt64)
        /// No deadline applies.
        case disarmTimer
        /// Watch the socket for these readiness events.
        case interest(read: Bool, write: Bool)
    }

    /// What the current deadline stands for.
    enum Timer: Sendable, Equatable {
        case none, header, body, idle, write, linger
    }

    /// What became of the client's input.
    enum Input: Sendable, Equatable {
        /// Parsed as it comes.
        case reading
        /// Dropped: the parser failed, a timeout hit, or the connection is closing.
        case discarding
        /// The client sent EOF.
        case ended
    }

    /// How far the connection is on its way out.
    enum Ending: Sendable, Equatable {
        /// Serving requests.
        case open
        /// Close once the response in progress is written (parse error, `Connection: close`, shutdown).
        case closing
        /// Output shut down; draining input until EOF or the linger deadline.
        case lingering
        /// Done.
        case closed
    }

    var parser: RequestParser
    let headerNanos: UInt64
    let bodyNanos: UInt64
    let idleNanos: UInt64

    /// Parsed events not yet answered, oldest first (`queueHead` indexes the next).
    var queue: [ParseEvent] = []
    var queueHead = 0
    var input = Input.reading
    var ending = Ending.open
    /// A worker has the request, or the loop is making a rejection's response.
    var awaitingResponse = false
    /// Response bytes the kernel has not taken, from `outputOffset`.
    var output: [UInt8] = []
    var outputOffset = 0
    /// A `.write` was emitted and its `written` has not come back.
    var writeOutstanding = false
    /// At least one request was taken (before that the header timeout runs from connect).
    var served = false
    var shuttingDown = false
    var timer = Timer.header
    var deadlineNanos: UInt64
    var wantRead = true
    var wantWrite = false
    /// What the loop was last told, so that actions go out only on change.
    var reportedDeadline: UInt64?
    var reportedRead = true
    var reportedWrite = false

    /// A connection accepted at `now`: reading, with the header timeout armed (`deadline`) and read interest only.
    public init(limits: HTTPLimits, now: UInt64) {
        parser = RequestParser(limits: limits)
        headerNanos = limits.headerTimeout.nanoseconds
        bodyNanos = limits.bodyTimeout.nanoseconds
        idleNanos = limits.keepAliveIdleTimeout.nanoseconds
        deadlineNanos = now &+ headerNanos
        reportedDeadline = deadlineNanos
    }

    /// The monotonic time at which the loop should report `tick`, or nil when no timer runs.
    public var deadline: UInt64? { timer == .none ? nil : deadlineNanos }

    /// Whether the machine closed (after which it ignores every event).
    public var isClosed: Bool { ending == .closed }

    /// Whether a response is awaited from the loop (a submitted request or a rejection).
    public var isAwaitingResponse: Bool { awaitingResponse }

    /// The readiness the loop should watch for.
    public var interest: (read: Bool, write: Bool) { (reportedRead, reportedWrite) }

    var pendingCount: Int { queue.count - queueHead }

    var hasOutput: Bool { outputOffset < output.count }

    /// Nothing parsed, running or being written.
    var isQuiet: Bool { !awaitingResponse && pendingCount == 0 && !hasOutput }
}
