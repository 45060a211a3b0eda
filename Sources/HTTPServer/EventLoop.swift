import CSystem
import Glibc
import HTTP
import Locks
import Synchronization

/// A message to an event loop from another thread.
enum LoopMessage: Sendable {
    /// A worker finished a request: its serialized response.
    case response(fd: Int32, id: UInt32, bytes: [UInt8], keepAlive: Bool)
    /// The accepting loop hands over a new connection.
    case adopt(fd: Int32, remoteAddress: String)
    /// Stop accepting, close idle connections, finish in-flight ones until the monotonic deadline.
    case shutdown(deadline: UInt64)
}

/// One I/O thread: an epoll instance watching its connections (and, on the first loop, the listening socket), an
/// eventfd that other threads ring after posting a message, and a periodic sweep for per-connection timers.
///
/// Only non-blocking socket work happens here; requests go to the worker pool and come back as `.response`. What
/// happens on a connection (keep-alive, pipelining, timeouts, linger, shutdown) is decided by its `HTTP1Connection`:
/// the loop feeds it socket events and carries out its actions (EventLoop+Connections.swift).
final class EventLoop: @unchecked Sendable {
    // Safe to share: other threads only call `post`, which touches the lock-protected inbox, the atomic flag and the
    // eventfd. Every other property is read and written only by the loop's own thread inside `run()` (or before
    // the thread starts).
    let index: Int
    let core: ServerCore
    let pool: WorkerPool<WorkItem, Outbox>
    let epollFD: Int32
    private let wakeFD: Int32
    // A plain pthread mutex, not `Synchronization.Mutex`: every worker posts here after every request, and the
    // latter's priority-inheritance futex goes through the kernel whenever two threads meet on it.
    private let inboxLock = ConditionLock()
    private var inbox: [LoopMessage] = []
    private let wakePending = Atomic<Bool>(false)

    var listenerFD: Int32 = -1
    var listenerPausedUntil: UInt64 = 0
    /// The loops new connections are spread over (set on the accepting loop only).
    var peers: [EventLoop] = []
    var nextPeer = 0
    var connections: [Connection?] = []
    var connectionCount = 0
    var nextID: UInt32 = 1
    var stopping = false
    var hardDeadline: UInt64 = .max
    var now: UInt64 = 0
    var ids = RequestIDGenerator()
    var dates = DateCache()
    /// Requests for the worker pool, submitted together once per round of events.
    var submissions: [WorkItem] = []
    /// The actions of the connection being served, reused from event to event.
    var actions: [HTTP1Connection.Action] = []
    let readBuffer: UnsafeMutableRawBufferPointer
    let headerNanos: UInt64
    let bodyNanos: UInt64
    let idleNanos: UInt64
    let sweepInterval: UInt64

    static let wakeToken: UInt64 = .max
    static let listenerToken: UInt64 = .max - 1

    /// Creates the epoll instance and eventfd; throws `ServerError.system` when the kernel refuses.
    init(index: Int, core: ServerCore, pool: WorkerPool<WorkItem, Outbox>) throws {
        self.index = index
        self.core = core
        self.pool = pool
        let limits = core.configuration.limits
        headerNanos = limits.headerTimeout.nanoseconds
        bodyNanos = limits.bodyTimeout.nanoseconds
        idleNanos = limits.keepAliveIdleTimeout.nanoseconds
        sweepInterval = min(max(min(headerNanos, bodyNanos, idleNanos) / 10, 5_000_000), 250_000_000)
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw ServerError.system("epoll_create1", errno) }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let code = errno
            close(epollFD)
            throw ServerError.system("eventfd", code)
        }
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        var event = csystem_epoll_event_make(EPOLLIN.rawValue, Self.wakeToken)
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else {
            let code = errno
            close(epollFD)
            close(wakeFD)
            readBuffer.deallocate()
            throw ServerError.system("epoll_ctl", code)
        }
    }

    deinit {
        close(epollFD)
        close(wakeFD)
        readBuffer.deallocate()
    }

    /// Serializes a response made by the server itself (503, 408, parse errors) on this loop's thread.
    func serialize(_ response: Response, version: HTTPVersion = .http11, keepAlive: Bool, headOnly: Bool = false) -> [UInt8] {
        ResponseSerializer.serialize(response, version: version, keepAlive: keepAlive, headOnly: headOnly,
                                     date: dates.current())
    }

    /// Watches a listening socket on this loop (before the thread starts); throws `ServerError.system`.
    func attachListener(_ fd: Int32, peers: [EventLoop]) throws {
        var event = csystem_epoll_event_make(EPOLLIN.rawValue, Self.listenerToken)
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { throw ServerError.system("epoll_ctl", errno) }
        listenerFD = fd
        self.peers = peers
    }

    /// Hands a message to the loop from any thread and wakes it (one eventfd write per batch of messages).
    func post(_ message: LoopMessage) { post(contentsOf: CollectionOfOne(message)) }

    /// Hands messages to the loop from any thread and wakes it.
    func post<Messages: Collection<LoopMessage>>(contentsOf messages: Messages) {
        inboxLock.withLock { inbox.append(contentsOf: messages) }
        if !wakePending.exchange(true, ordering: .sequentiallyConsistent) {
            var one: UInt64 = 1
            _ = Glibc.write(wakeFD, &one, 8)
        }
    }

    /// The loop: runs until shutdown has closed every connection.
    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var spare: [LoopMessage] = []
        now = monotonicNanoseconds()
        var nextSweep = now &+ sweepInterval
        while !(stopping && connectionCount == 0) {
            let waitNanos = nextSweep > now ? nextSweep - now : 0
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), Int32(clamping: (waitNanos + 999_999) / 1_000_000))
            }
            now = monotonicNanoseconds()
            if count < 0 && errno != EINTR {
                core.logger.error("epoll_wait failed", ["errno": .int(Int(errno))])
                break
            }
            for i in 0..<max(0, Int(count)) {
                let token = csystem_epoll_event_data(&events[i])
                let mask = events[i].events
                if token == Self.wakeToken {
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeFD, &value, 8)
                    wakePending.store(false, ordering: .sequentiallyConsistent)
                    inboxLock.withLock { swap(&inbox, &spare) }
                    for message in spare { handle(message) }
                    spare.removeAll(keepingCapacity: true)
                } else if token == Self.listenerToken {
                    acceptConnections()
                } else {
                    connectionEvent(token: token, mask: mask)
                }
            }
            submitRequests()
            if now >= nextSweep {
                sweep()
                nextSweep = now &+ sweepInterval
            }
        }
        for connection in connections.compactMap({ $0 }) { closeConnection(connection) }
        if listenerFD >= 0 {
            close(listenerFD)
            listenerFD = -1
        }
        peers = []
        // Connections handed over after the last shutdown step are closed so that none leaks.
        for message in inboxLock.withLock({ () -> [LoopMessage] in defer { inbox.removeAll() }; return inbox }) {
            if case .adopt(let fd, _) = message {
                close(fd)
                core.openConnections.subtract(1, ordering: .relaxed)
            }
        }
    }

    private func handle(_ message: LoopMessage) {
        switch message {
        case .response(let fd, let id, let bytes, let keepAlive):
            guard fd >= 0, Int(fd) < connections.count, let connection = connections[Int(fd)],
                  connection.id == id else { return }
            completed(connection, bytes: bytes, keepAlive: keepAlive)
        case .adopt(let fd, let remoteAddress):
            adopt(fd: fd, remoteAddress: remoteAddress)
        case .shutdown(let deadline):
            beginShutdown(deadline: deadline)
        }
    }

    private func beginShutdown(deadline: UInt64) {
        stopping = true
        hardDeadline = deadline
        if listenerFD >= 0 {
            close(listenerFD)
            listenerFD = -1
        }
        peers = []
        for connection in connections.compactMap({ $0 }) { shutDown(connection) }
    }

    private func sweep() {
        if stopping && now >= hardDeadline {
            for connection in connections.compactMap({ $0 }) { closeConnection(connection) }
            return
        }
        if listenerFD >= 0 && listenerPausedUntil != 0 && now >= listenerPausedUntil {
            listenerPausedUntil = 0
            var event = csystem_epoll_event_make(EPOLLIN.rawValue, Self.listenerToken)
            _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, listenerFD, &event)
        }
        for case let connection? in connections where now >= connection.deadline {
            expired(connection)
        }
    }
}

/// Random-looking request ids (16 hex digits) from a per-loop generator seeded by the system RNG: unique enough for
/// correlating logs, not secrets.
struct RequestIDGenerator {
    private var state: UInt64

    init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    /// The next id (wyrand).
    mutating func next() -> String {
        state &+= 0xA076_1D64_78BD_642F
        let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
        let value = product.high ^ product.low
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 16) { buffer in
            digits.withUTF8Buffer { hex in
                for i in 0..<16 {
                    buffer[i] = hex[Int((value >> UInt64(60 - 4 * i)) & 0xF)]
                }
            }
            return 16
        }
    }
}
