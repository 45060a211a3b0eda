import CSystem
import Glibc

extension Server {
    /// Starts the server if it is not running yet, serves until the process gets SIGTERM or SIGINT (or until
    /// `shutdown()` is called elsewhere), shuts down gracefully and returns once everything is stopped; the caller
    /// then exits 0. Throws what `start()` throws, or `ServerError.system` when the signal descriptor cannot be made.
    ///
    /// Call it from the main thread before starting other threads of your own: the two signals are blocked in the
    /// calling thread and read through a signalfd, and the server's own threads block them too.
    public func runUntilSignalled() throws {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        if !hasStarted { try start() }
        let fd = signalfd(-1, &signals, Int32(SFD_CLOEXEC))
        guard fd >= 0 else {
            let code = errno
            shutdown()
            wait()
            throw ServerError.system("signalfd", code)
        }
        defer { close(fd) }
        while isServing {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&entry, 1, 200) > 0 else { continue }
            var info = signalfd_siginfo()
            let count = read(fd, &info, MemoryLayout<signalfd_siginfo>.size)
            guard count == MemoryLayout<signalfd_siginfo>.size else { continue }
            logger.info("shutting down", ["signal": .string(info.ssi_signo == UInt32(SIGINT) ? "SIGINT" : "SIGTERM")])
            shutdown()
        }
        wait()
    }
}
