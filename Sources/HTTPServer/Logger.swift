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
    private let sink: (@Sendable (String) -> Void)?

    /// A logger handing each JSON line (without its newline) to `sink`; `sink` may be called from any thread.
    public init(minimumLevel: Level = .info, accessLog: Bool = true, sink: @escaping @Sendable (String) -> Void) {
        self.minimumLevel = minimumLevel
        self.accessLog = accessLog
        self.sink = sink
    }

    private init() {
        minimumLevel = .error
        accessLog = false
        sink = nil
    }

    /// A logger writing to standard error.
    public static func standardError(minimumLevel: Level = .info, accessLog: Bool = true) -> Logger {
        Logger(minimumLevel: minimumLevel, accessLog: accessLog) { line in StandardErrorSink.shared.write(line) }
    }

    /// A logger that drops everything (benchmarks, tests that do not look at logs).
    public static let discard = Logger()

    /// Writes one record with `message` and extra fields, if `level` is enabled.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        guard let sink, level >= minimumLevel else { return }
        var line = ""
        line.reserveCapacity(256)
        line += "{\"ts\":\""
        line += Self.timestamp()
        line += "\",\"level\":\""
        line += level.name
        line += "\",\"msg\":"
        LogValue.string(message).appendJSON(to: &line)
        for (key, value) in fields {
            line += ","
            LogValue.string(key).appendJSON(to: &line)
            line += ":"
            value.appendJSON(to: &line)
        }
        line += "}"
        sink(line)
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

/// Writes whole lines to file descriptor 2, one write(2) per line and no lock: a write of at most PIPE_BUF bytes to
/// a pipe is atomic, and Linux serializes writes to a regular file on its offset, so concurrent lines never mix.
/// (A lock here was the most contended one in the server: every request of every worker writes its access line.)
/// Only a line longer than PIPE_BUF to a pipe, written in parts, could interleave with another.
final class StandardErrorSink: Sendable {
    static let shared = StandardErrorSink()

    func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(10)
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
