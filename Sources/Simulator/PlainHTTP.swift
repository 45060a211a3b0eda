import Foundation
import JSON

/// A tiny blocking HTTP/1.1 client for `http://host:port` (an IPv4 address or `localhost`): one request per
/// connection (`Connection: close`), the response read to its end. What the simulator needs to play a phone against a
/// server on this machine or a test network, and what the server's tests drive a running `gatehouse serve` with; it
/// speaks no TLS (put the simulator beside the server, or behind a local proxy).
public struct PlainHTTP: Sendable {
    public let host: String
    public let port: UInt16
    /// Seconds a connect, send or receive may block.
    public var timeout = 15
    /// The largest response read.
    public static let maxResponseBytes = 4 * 1024 * 1024

    /// One response as received.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// The first field named `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as JSON, when it is.
        public var json: JSON? { try? JSONParser.parse(body) }
    }

    /// Why a request failed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A client of `endpoint` (`http://127.0.0.1:8080`, a trailing `/` allowed).
    /// - Throws: `Failure` for anything but an `http://` URL with an IPv4 address or `localhost` and a port.
    public init(endpoint: String) throws {
        var rest = Substring(endpoint)
        guard rest.hasPrefix("http://") else { throw Failure(description: "--endpoint must be http://HOST:PORT (got \(endpoint))") }
        rest = rest.dropFirst(7)
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw Failure(description: "--endpoint must name a port: http://HOST:PORT") }
        let host = parts[0] == "localhost" ? "127.0.0.1" : String(parts[0])
        guard inet_addr(host) != INADDR_NONE else { throw Failure(description: "--endpoint's host must be an IPv4 address or localhost") }
        self.host = host
        self.port = port
    }

    /// A client of `http://127.0.0.1:port`.
    public init(loopbackPort port: UInt16) {
        host = "127.0.0.1"
        self.port = port
    }

    /// POSTs `body` as JSON to `path`, with `headers`.
    /// - Throws: `Failure` when the server cannot be reached or answers garbage.
    public func post(_ path: String, _ body: JSON, headers: [(String, String)] = []) throws -> Response {
        try send("POST", path, headers: [("Content-Type", "application/json")] + headers, body: body.serialized())
    }

    /// GETs `path`.
    /// - Throws: `Failure`.
    public func get(_ path: String) throws -> Response {
        try send("GET", path, headers: [], body: [])
    }

    /// Sends one request (with `Content-Length` when there is a body or the method takes one) and reads the whole
    /// response.
    /// - Throws: `Failure` when the server cannot be reached or answers garbage.
    public func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "cannot connect to \(host):\(port) (errno \(errno)): is gatehouse serving there?") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while received.count <= Self.maxResponseBytes {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Failure(description: "recv: errno \(errno) after \(received.count) bytes") }
            if n == 0 { break }
            received += chunk[..<n]
        }
        return try Self.parse(received)
    }

    /// Splits a response into status, header fields and body (by `Content-Length` when given, else to the end).
    static func parse(_ bytes: [UInt8]) throws -> Response {
        let separator = Array("\r\n\r\n".utf8)
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw Failure(description: "no complete response head in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.first ?? ""
        let statusParts = statusLine.split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line: \(statusLine)")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header line: \(line)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap({ Int($0.value) }) {
            guard body.count >= length else { throw Failure(description: "body cut short: \(body.count) of \(length) bytes") }
            body = Array(body[..<length])
        }
        return Response(status: status, headers: headers, body: body)
    }
}
