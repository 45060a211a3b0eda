import Glibc
import HTTP
import Locks
import Synchronization

/// An HTTP/1.1 server: epoll I/O threads move bytes and parse, a bounded worker pool runs the responder.
///
/// Idle keep-alive connections and slow clients hold no worker. Timeouts and byte limits come from
/// `ServerConfiguration.limits`. `shutdown()` is graceful: stop accepting, close idle connections, let in-flight
/// requests finish (up to `shutdownTimeout`), then close everything; `wait()` blocks until that is done.
public final class Server: Sendable {
    private enum Phase: Sendable {
        case created, running, stopping, stopped
    }

    private struct State: Sendable {
        var phase = Phase.created
        var loops: [EventLoop] = []
        var pool: WorkerPool<WorkItem, Outbox>?
        var listenerFD: Int32 = -1
        var boundPort = 0
        var runningLoops = 0
        var deadline: UInt64 = 0
        /// The last loop ended and the workers are being stopped.
        var finishing = false
    }

    private let core: ServerCore
    private let state = Mutex(State())
    private let stopped = ConditionLock()

    /// A server answering every request with `responder` (which must not throw: see `Router.responder`), logging
    /// to `logger`. Nothing is bound until `start()`.
    public init(configuration: ServerConfiguration, responder: @escaping @Sendable (Request) -> Response,
                logger: Logger = .standardError()) {
        core = ServerCore(configuration: configuration, responder: responder, logger: logger)
    }

    /// The port the server listens on (useful with port 0), or 0 before `start()`.
    public var boundPort: Int { state.withLock { $0.boundPort } }

    /// Connections currently open.
    public var openConnections: Int { core.openConnections.load(ordering: .relaxed) }

    /// Whether `start()` succeeded at some point.
    var hasStarted: Bool { state.withLock { $0.phase != .created } }

    /// Whether the server runs and no shutdown began.
    var isServing: Bool { state.withLock { $0.phase == .running } }

    var logger: Logger { core.logger }

    /// Binds, listens and starts the I/O and worker threads; returns once the server accepts connections.
    /// Throws `ServerError.invalidAddress` (host not an IP literal nor "localhost"), `.addressInUse` (never falls back
    /// to another address), `.alreadyStarted`, or `.system` when a socket, epoll or thread call fails.
    public func start() throws {
        let configuration = core.configuration
        let address = try SocketAddress(host: configuration.host, port: configuration.port)
        try state.withLock { state in
            guard state.phase == .created else { throw ServerError.alreadyStarted }
            _ = signal(SIGPIPE, SIG_IGN)
            let listener = try address.listen(host: configuration.host, port: configuration.port)
            let core = self.core
            let pool = WorkerPool<WorkItem, Outbox>(
                threads: configuration.workerThreads, queueLimit: configuration.workerQueueLimit,
                makeContext: { Outbox(logger: core.logger) }, work: { core.process($0, outbox: &$1) }, idle: { $0.flush() },
                rest: { $0.writeLog() })
            var loops: [EventLoop] = []
            do {
                for index in 0..<max(1, configuration.ioThreads) {
                    loops.append(try EventLoop(index: index, core: core, pool: pool))
                }
                try loops[0].attachListener(listener.fd, peers: loops)
                try pool.start()
            } catch {
                close(listener.fd)
                pool.stop()
                throw error
            }
            state.listenerFD = listener.fd
            state.boundPort = listener.port
            state.loops = loops
            state.pool = pool
            state.phase = .running
            state.runningLoops = loops.count
        }
        var failure: (any Error)?
        for loop in state.withLock({ $0.loops }) {
            do {
                try ThreadStarter.start(name: "gh-io-\(loop.index)") { [self] in
                    loop.run()
                    loopEnded()
                }
            } catch {
                failure = error
                state.withLock { $0.runningLoops -= 1 }
            }
        }
        if let failure {
            shutdown()
            finishIfLoopsEnded()  // in case no loop thread started at all
            throw failure
        }
    }

    /// Begins a graceful shutdown; returns at once. Safe from any thread (a handler included) and idempotent.
    public func shutdown() {
        let loops: [EventLoop] = state.withLock { state in
            guard state.phase == .running else { return [] }
            state.phase = .stopping
            state.deadline = monotonicNanoseconds() &+ core.configuration.shutdownTimeout.nanoseconds
            core.stopping.store(true, ordering: .sequentiallyConsistent)
            // Refuse new connections right away (the loop closes the descriptor itself, so it is never reused while
            // the loop still watches it).
            if state.listenerFD >= 0 { Glibc.shutdown(state.listenerFD, Int32(SHUT_RDWR)) }
            return state.loops
        }
        guard !loops.isEmpty else { return }
        let deadline = state.withLock { $0.deadline }
        for loop in loops { loop.post(.shutdown(deadline: deadline)) }
    }

    /// Blocks until the server has stopped (returns at once if it never started).
    public func wait() {
        stopped.withLock {
            while true {
                let phase = state.withLock { $0.phase }
                if phase == .created || phase == .stopped { return }
                stopped.wait()
            }
        }
    }

    private func loopEnded() {
        state.withLock { $0.runningLoops -= 1 }
        finishIfLoopsEnded()
    }

    /// Once every loop has ended: stops the workers (waiting for them until the shutdown deadline) and releases
    /// `wait()`. Runs once.
    private func finishIfLoopsEnded() {
        let finished: (WorkerPool<WorkItem, Outbox>?, UInt64)? = state.withLock { state in
            guard state.runningLoops == 0, state.phase == .stopping, !state.finishing else { return nil }
            state.finishing = true
            return (state.pool, state.deadline)
        }
        guard let (pool, deadline) = finished else { return }
        // Workers still running a handler past the deadline are left behind: their responses go nowhere.
        pool?.stop()
        _ = pool?.waitStopped(untilNanoseconds: max(deadline, monotonicNanoseconds()))
        stopped.withLock {
            state.withLock { state in
                state.phase = .stopped
                state.loops = []
                state.pool = nil
            }
        }
        stopped.broadcast()
    }
}
