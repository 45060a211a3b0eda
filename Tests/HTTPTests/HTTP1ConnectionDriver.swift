import HTTP

/// A stand-in for the event loop around an `HTTP1Connection`: it feeds events at a clock the test sets, carries
/// out the actions like the loop does (a socket that takes `room` bytes per write, rejections answered at once),
/// records what happened, and checks the machine's invariants on every action.
struct HTTP1ConnectionDriver {
    typealias Action = HTTP1Connection.Action

    var machine: HTTP1Connection
    var now: UInt64
    /// Bytes the socket took, in order.
    var sent: [UInt8] = []
    /// Requests handed to the worker, in order.
    var submitted: [Request] = []
    /// Statuses the machine rejected with, in order.
    var rejected: [Int] = []
    var closed = false
    var outputShut = false
    /// What the loop was told: the deadline and interest.
    var deadline: UInt64?
    var interest = (read: true, write: false)
    /// How many bytes the socket takes per write (then it would block until `writable`).
    var room = Int.max
    /// Every action seen, in order.
    var actions: [Action] = []
    /// Invariants broken so far (empty when all held).
    var violations: [String] = []
    private var awaiting = false

    init(limits: HTTPLimits = Self.limits, now: UInt64 = 1_000) {
        machine = HTTP1Connection(limits: limits, now: now)
        self.now = now
        deadline = machine.deadline
    }

    /// Short round timeouts, so that tests read: header 10 s, body 20 s, idle 30 s.
    static let limits = HTTPLimits(headerTimeout: .seconds(10), bodyTimeout: .seconds(20),
                                   keepAliveIdleTimeout: .seconds(30))
    static let second: UInt64 = 1_000_000_000

    var text: String { String(decoding: sent, as: UTF8.self) }
    var paths: [String] { submitted.map(\.target) }

    mutating func apply(_ event: HTTP1Connection.Event) {
        if case .responded = event { awaiting = false }
        run(machine.handle(event, now: now))
    }

    mutating func receive(_ text: String) { apply(.received(Array(text.utf8))) }

    /// Answers the submitted request with a body naming it.
    mutating func respond(keepAlive: Bool = true) {
        let body = "R" + (submitted.last?.target ?? "?") + ";"
        apply(.responded(Array(body.utf8), keepAlive: keepAlive))
    }

    /// Moves the clock by `seconds` and ticks.
    mutating func wait(_ seconds: Double) {
        now &+= UInt64(seconds * 1e9)
        apply(.tick)
    }

    /// Lets the socket take everything again and reports writability.
    mutating func drain() {
        room = .max
        apply(.writable)
    }

    mutating func run(_ first: [Action]) {
        var queue = first
        var index = 0
        while index < queue.count {
            let action = queue[index]
            index += 1
            check(action)
            actions.append(action)
            switch action {
            case .write(let bytes):
                let taken = min(room, bytes.count)
                room -= taken
                sent += bytes.prefix(taken)
                queue += machine.handle(.written(taken), now: now)
            case .submit(let request):
                submitted.append(request)
            case .reject(let error):
                rejected.append(error.status)
                awaiting = false
                queue += machine.handle(.responded(Array("E\(error.status);".utf8), keepAlive: false), now: now)
            case .shutdownOutput: outputShut = true
            case .close: closed = true
            case .armTimer(let deadline): self.deadline = deadline
            case .disarmTimer: deadline = nil
            case .interest(let read, let write): interest = (read, write)
            }
        }
        checkState()
    }

    /// Rules about single actions.
    private mutating func check(_ action: Action) {
        if closed { violations.append("\(action) after close") }
        switch action {
        case .submit, .reject:
            if awaiting { violations.append("two requests in flight") }
            awaiting = true
        case .write(let bytes):
            if bytes.isEmpty { violations.append("empty write") }
            if outputShut { violations.append("write after shutting output down") }
        default: break
        }
    }

    /// Rules about the state between events.
    private mutating func checkState() {
        if machine.isClosed != closed { violations.append("closed without .close (or the reverse)") }
        guard !closed else { return }
        if machine.deadline != deadline { violations.append("deadline not reported") }
        if machine.interest != interest { violations.append("interest not reported") }
        if !machine.isAwaitingResponse && deadline == nil {
            violations.append("waiting on the peer without a timer")
        }
    }
}
