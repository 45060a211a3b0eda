import Glibc
import Synchronization

/// Writes structured log records as one JSON object per line (`{"ts":…,"level":…,"msg":…, fields…}`) to a sink.
///
/// Thread-safe: the standard-error sink serializes writes under a lock, so lines from different threads never
/// interleave. Never pass a secret, token, cookie or query string as a field.
public struct Logger: Sendable {
    /// How important a record is; records below the logger's minimum level are dropped.
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error

        /// The name written in the `level` field.
        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        /// Orders levels by importance.
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// Records at or above this level are written.
    public var minimumLevel: Level
    /// Whether the server writes an access-log line per request.
    public var accessLog: Bool
    /// Path prefixes whose rest is a secret (a one-time link's token): the access log and the error log write such a
    /// path as the prefix and `[redacted]`.
    public var secretPathPrefixes: [String] = []
    private let sink: (@Sendable (String) -> Void)?
    /// Lines given together to `write(_:)` go out in as few write(2) calls as the pipe's atomic size allows.
    private let batched: Bool

    /// A logger handing each JSON line (without its newline) to `sink`; `sink` may be called from any thread.
    public init(minimumLevel: Level = .info, accessLog: Bool = true, sink: @escaping @Sendable (String) -> Void) {
        self.minimumLevel = minimumLevel
        self.accessLog = accessLog
        self.sink = sink
        batched = false
    }

    private init() {
        minimumLevel = .error
        accessLog = false
        sink = nil
        batched = false
    }

    private init(standardErrorAt minimumLevel: Level, accessLog: Bool) {
        self.minimumLevel = minimumLevel
        self.accessLog = accessLog
        sink = { line in StandardErrorSink.shared.write(CollectionOfOne(Array(line.utf8))) }
        batched = true
    }

    /// A logger writing to standard error.
    public static func standardError(minimumLevel: Level = .info, accessLog: Bool = true) -> Logger {
        Logger(standardErrorAt: minimumLevel, accessLog: accessLog)
    }

    /// A logger that drops everything (benchmarks, tests that do not look at logs).
    public static let discard = Logger()

    /// `path` as it may be logged: cut after the first of ``secretPathPrefixes`` it starts with.
    public func loggable(path: String) -> String {
        guard let prefix = secretPathPrefixes.first(where: { path.hasPrefix($0) && path.utf8.count > $0.utf8.count }) else { return path }
        return prefix + "[redacted]"
    }

    /// Writes one record with `message` and extra fields, if `level` is enabled.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        guard let line = line(level, message, fields) else { return }
        write(CollectionOfOne(line))
    }

    /// Writes one record with fields made at run time (in the order given), if `level` is enabled.
    public func log(_ level: Level, _ message: String, fields: [(key: String, value: LogValue)]) {
        guard let line = line(level, message, fields) else { return }
        write(CollectionOfOne(line))
    }

    /// The UTF-8 JSON line of a record (without its newline), or nil when the level is not enabled or nothing is
    /// logged.
    func line(_ level: Level, _ message: String, _ fields: some Sequence<(key: String, value: LogValue)>) -> [UInt8]? {
        guard sink != nil, level >= minimumLevel else { return nil }
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: "{\"ts\":\"".utf8)
        line.append(contentsOf: Self.timestamp().utf8)
        line.append(contentsOf: "\",\"level\":\"".utf8)
        line.append(contentsOf: level.name.utf8)
        line.append(contentsOf: "\",\"msg\":".utf8)
        LogValue.string(message).appendJSON(to: &line)
        for (key, value) in fields {
            line.append(UInt8(ascii: ","))
            LogValue.string(key).appendJSON(to: &line)
            line.append(UInt8(ascii: ":"))
            value.appendJSON(to: &line)
        }
        line.append(UInt8(ascii: "}"))
        return line
    }

    /// Writes lines made by `line(_:_:_:)` now (the server keeps a worker's access lines and writes them together).
    func write<Lines: Collection<[UInt8]>>(_ lines: Lines) {
        guard let sink, !lines.isEmpty else { return }
        if batched {
            StandardErrorSink.shared.write(lines)
        } else {
            for line in lines { sink(String(decoding: line, as: UTF8.self)) }
        }
    }

    /// Writes an info record.
    public func info(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.info, message, fields) }
    /// Writes a warning record.
    public func warning(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.warning, message, fields) }
    /// Writes an error record.
    public func error(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.error, message, fields) }

    /// UTC time as `2024-05-01T12:00:00.123Z`, without Foundation (digits written into one small buffer).
    static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var at = 0
            func put(_ value: Int, _ width: Int, then separator: UInt8?) {
                var divisor = 1
                for _ in 1..<width { divisor *= 10 }
                var rest = value
                while divisor > 0 {
                    buffer[at] = UInt8(truncatingIfNeeded: 48 + (rest / divisor) % 10)
                    at += 1
                    rest %= divisor
                    divisor /= 10
                }
                if let separator {
                    buffer[at] = separator
                    at += 1
                }
            }
            put(Int(parts.tm_year) + 1900, 4, then: UInt8(ascii: "-"))
            put(Int(parts.tm_mon) + 1, 2, then: UInt8(ascii: "-"))
            put(Int(parts.tm_mday), 2, then: UInt8(ascii: "T"))
            put(Int(parts.tm_hour), 2, then: UInt8(ascii: ":"))
            put(Int(parts.tm_min), 2, then: UInt8(ascii: ":"))
            put(Int(parts.tm_sec), 2, then: UInt8(ascii: "."))
            put(spec.tv_nsec / 1_000_000, 3, then: UInt8(ascii: "Z"))
            return at
        }
    }
}

/// Writes whole lines to file descriptor 2 with no lock: a write of at most PIPE_BUF bytes to a pipe is atomic, and
/// Linux serializes writes to a regular file on its offset, so concurrent lines never mix. Several lines go out in
/// one write(2) while they fit in PIPE_BUF; only a single line longer than that, written to a pipe in parts, could
/// interleave with another. (A lock here was the most contended one in the server: every request writes its line.)
final class StandardErrorSink: Sendable {
    static let shared = StandardErrorSink()
    static let atomicSize = Int(PIPE_BUF)

    func write<Lines: Collection<[UInt8]>>(_ lines: Lines) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(Self.atomicSize, lines.reduce(0) { $0 + $1.count + 1 }))
        for line in lines {
            if !bytes.isEmpty && bytes.count + line.count + 1 > Self.atomicSize {
                send(bytes)
                bytes.removeAll(keepingCapacity: true)
            }
            bytes.append(contentsOf: line)
            bytes.append(10)
        }
        if !bytes.isEmpty { send(bytes) }
    }

    private func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(2, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
