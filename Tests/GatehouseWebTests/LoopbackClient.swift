import Foundation
import Gatehouse
import JSON

/// A tiny blocking HTTP/1.1 client over a real loopback socket: one request per connection (`Connection: close`),
/// a response read to the end. Enough to drive a running `gatehouse serve` the way any client would.
struct LoopbackClient {
    let port: UInt16
    /// Seconds a connect, send or receive may block before the request fails.
    var timeout = 15

    /// One response as received.
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        /// The first field named `name` (case-insensitive).
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        var text: String { String(decoding: body, as: UTF8.self) }
        var json: JSON? { try? JSONParser.parse(body) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends one request and reads the whole response.
    func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)") }

        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }

        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
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
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, bytes.count - 4)).first(where: { bytes.count >= 4 && Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw Failure(description: "no complete response head in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line: \(lines[0])")
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
