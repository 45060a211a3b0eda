import Glibc
import HTTP

/// A blocking loopback HTTP/1.1 client for the tests: writes raw bytes, reads responses by their framing.
final class TestClient {
    enum Failure: Error, Equatable {
        case connect(Int32)
        case timedOut
        case closed
        case malformed(String)
    }

    /// A parsed response.
    struct Reply {
        var status: Int
        var headers: Headers
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads time out after `timeout` seconds.
    init(port: Int, timeout: Double = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.connect(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure.connect(code)
        }
        setTimeout(timeout)
    }

    deinit { Glibc.close(fd) }

    func setTimeout(_ seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { throw Failure.closed }
            offset += n
        }
    }

    /// Reads more bytes into the buffer; false on EOF or reset.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure.timedOut }
            return false
        }
        if n == 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one response; `head` for a response to HEAD (no body whatever the length says).
    func readResponse(head: Bool = false) throws -> Reply {
        var end: Int?
        while end == nil {
            end = Self.find([13, 10, 13, 10], in: buffer)
            if end == nil { guard try fill() else { throw Failure.closed } }
        }
        guard let end else { throw Failure.closed }
        let headText = String(decoding: buffer[0..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { throw Failure.malformed(headText) }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure.malformed(headText) }
        var headers = Headers()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Failure.malformed(headText) }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        var reply = Reply(status: status, headers: headers, body: [])
        if head || status < 200 || status == 204 || status == 304 { return reply }
        if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            while buffer.count < length { guard try fill() else { throw Failure.closed } }
            reply.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            reply.body = buffer
            buffer = []
        }
        return reply
    }

    /// Reads until the server closes; true when it closed (EOF or reset) before the read timeout.
    func waitForClose() -> Bool {
        do {
            while try fill() {}
            return true
        } catch {
            return false
        }
    }

    /// Bytes received but not yet consumed as a response.
    var unread: [UInt8] { buffer }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }
}
