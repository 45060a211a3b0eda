import Foundation

/// A child process for tests (the SQLite crash writer, `gatehouse serve`), spawned with posix_spawn, its stdout on a
/// pipe read line by line and its stderr in a file.
///
/// Not Foundation's `Process`: under `--sanitize=address` LeakSanitizer reports a leak inside `Process.run()` on
/// every launch, which would fail a sanitized run.
public final class ChildProcess {
    public let pid: pid_t
    /// Where the child's stderr goes (its log lines), to quote when something fails.
    public let standardErrorPath: String
    private let output: Int32
    private var buffered: [UInt8] = []
    private var reaped: Int32?
    private var atEndOfFile = false

    /// Starts `executable` with `arguments`. The pipe is close-on-exec here, so children spawned concurrently by other
    /// tests do not inherit it (and keep it open past this child's exit).
    /// This process's environment without the developer's `GATEHOUSE_*` settings (a child `gatehouse` would read
    /// them: a database, a master key, rate limits), keeping only the test harness's `GATEHOUSE_TEST_*`.
    public static var scrubbedEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GATEHOUSE_") || $0.key.hasPrefix("GATEHOUSE_TEST_") }
    }

    public init(_ executable: String, _ arguments: [String], standardErrorPath: String) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, standardErrorPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = Self.scrubbedEnvironment.map { strdup("\($0.key)=\($0.value)") } + [nil]
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
        self.standardErrorPath = standardErrorPath
    }

    deinit {
        close(output)
        if reaped == nil {
            _ = Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }

    /// The next line of stdout without its newline; nil at end of file or when none arrives within `timeout` seconds.
    public func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(remaining * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                atEndOfFile = true
                guard !buffered.isEmpty else { return nil }
                let line = String(decoding: buffered, as: UTF8.self)
                buffered = []
                return line
            }
            buffered += chunk[..<count]
        }
    }

    /// Reads stdout until the child closes it (at exit), then reaps the child. Returns the exit code (`128 + signal`
    /// when a signal ended it) and the lines read; the code is nil when stdout stayed open past `timeout` seconds.
    public func finish(timeout: Double) -> (code: Int32?, lines: [String]) {
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return (nil, lines) }
            guard let line = readLine(timeout: remaining) else { break }
            lines.append(line)
        }
        guard atEndOfFile else { return (nil, lines) }
        if let reaped { return (reaped, lines) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        reaped = code
        return (code, lines)
    }

    /// Sends `signal` to the child.
    public func kill(_ signal: Int32) {
        _ = Glibc.kill(pid, signal)
    }

    /// The child's stderr so far (its log), for failure messages.
    public var standardError: String {
        (try? String(contentsOfFile: standardErrorPath, encoding: .utf8)) ?? ""
    }
}
