import Glibc

/// Why the server could not start or run.
public enum ServerError: Error, Equatable, CustomStringConvertible {
    /// The host is not an IPv4 or IPv6 literal nor "localhost"; the server never falls back to another address.
    case invalidAddress(String)
    /// Another socket already listens on this address and port.
    case addressInUse(host: String, port: Int)
    /// `start()` was called twice.
    case alreadyStarted
    /// A system call failed: its name and `errno`.
    case system(String, Int32)

    /// A message for the operator saying what to change.
    public var description: String {
        switch self {
        case .invalidAddress(let host):
            "invalid listen address \"\(host)\": use an IPv4 or IPv6 literal (e.g. 127.0.0.1, ::1, 0.0.0.0) or localhost"
        case .addressInUse(let host, let port):
            "address already in use: \(host):\(port) (another process listens there; pick another --port)"
        case .alreadyStarted:
            "the server was already started"
        case .system(let call, let code):
            "\(call) failed: \(Self.message(code)) (errno \(code))"
        }
    }

    private static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "unknown error" }
        return String(cString: text)
    }
}
