import Foundation

/// A child process with its stdout on a pipe, spawned with posix_spawn.
///
/// Not Foundation's `Process`: under `--sanitize=address`, LeakSanitizer reports 32 bytes leaked inside
/// `Process.run()` (a weak-reference side table) on every launch, which would make the sanitized run fail.
final class ChildProcess {
    let pid: pid_t
    private let output: Int32

    /// Starts `executable` with `arguments`, its stdout on a pipe (close-on-exec in this process, so concurrently
    /// spawned children do not inherit it), its stderr inherited.
    init(_ executable: String, _ arguments: [String]) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + environment).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            throw POSIXError(.init(rawValue: rc) ?? .EIO)
        }
        self.pid = pid
        self.output = fds[0]
    }

    deinit {
        close(output)
    }

    /// The next bytes of the child's stdout; empty at end of file.
    func read() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Array(buffer[..<count]) : []
        }
    }

    /// Sends `signal` to the child.
    func kill(_ signal: Int32) {
        _ = Glibc.kill(pid, signal)
    }

    /// Waits for the child to end; returns the signal that ended it, or nil when it exited.
    func waitForTerminatingSignal() -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal != 0 && signal != 0x7f ? signal : nil
    }
}
