import CSystem
import Glibc

/// A parsed listen address and the socket calls around it. IPv4/IPv6 literals and "localhost" only: no DNS and no
/// fallback to another address.
struct SocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    var family: Int32 = AF_INET

    /// Parses `host` and `port`; throws `ServerError.invalidAddress` for anything else.
    init(host: String, port: Int) throws {
        guard (0...65535).contains(port) else { throw ServerError.invalidAddress("\(host):\(port)") }
        let literal = host == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeBytes(of: v4) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            family = AF_INET
        } else if inet_pton(AF_INET6, Self.stripBrackets(literal), &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeBytes(of: v6) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            family = AF_INET6
        } else {
            throw ServerError.invalidAddress(host)
        }
    }

    private static func stripBrackets(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Creates a non-blocking listening socket bound to this address; returns it and the bound port.
    /// Throws `addressInUse` on EADDRINUSE, `system` otherwise.
    func listen(host: String, port: Int, backlog: Int32 = 1024) throws -> (fd: Int32, port: Int) {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerError.system("socket", errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = storage
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE { throw ServerError.addressInUse(host: host, port: port) }
            if code == EADDRNOTAVAIL { throw ServerError.invalidAddress(host) }
            throw ServerError.system("bind", code)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE { throw ServerError.addressInUse(host: host, port: port) }
            throw ServerError.system("listen", code)
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        return (fd, Self.port(of: actual))
    }

    /// The port of an IPv4 or IPv6 socket address.
    static func port(of storage: sockaddr_storage) -> Int {
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: storage) { bytes in
            if family == AF_INET6 {
                return Int(UInt16(bigEndian: bytes.load(as: sockaddr_in6.self).sin6_port))
            }
            return Int(UInt16(bigEndian: bytes.load(as: sockaddr_in.self).sin_port))
        }
    }

    /// The numeric host of a peer address ("127.0.0.1", "::1").
    static func host(of storage: sockaddr_storage) -> String {
        let family = Int32(storage.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok: Bool = withUnsafeBytes(of: storage) { bytes in
            if family == AF_INET6 {
                var address = bytes.load(as: sockaddr_in6.self).sin6_addr
                return inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil
            }
            var address = bytes.load(as: sockaddr_in.self).sin_addr
            return inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil
        }
        guard ok else { return "" }
        return text.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeRawBufferPointer(buffer).prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
