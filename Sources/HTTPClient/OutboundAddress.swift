import Glibc

/// An IP address an outbound call would reach, and whether it lies inside a network rather than on the internet:
/// private (RFC 1918), loopback, link-local, unique-local (fc00::/7), shared (100.64.0.0/10), unspecified, multicast,
/// reserved and documentation ranges, and IPv6 forms that embed such an IPv4 address (mapped, NAT64). Webhooks refuse
/// those unless the server is told otherwise.
public struct OutboundAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public let bytes: [UInt8]

    /// The address written `text` (dotted IPv4, or IPv6 without brackets), nil for anything else.
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isIPv6: Bool { bytes.count == 16 }

    /// The address as text (IPv6 compressed, without brackets).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv6 ? AF_INET6 : AF_INET
        let written = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the address is inside a network (see the type's summary) rather than a public internet address.
    public var isInternal: Bool {
        if isIPv6 {
            let b = bytes
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return Self.internalIPv4(Array(b[12...])) }  // ::ffff:a.b.c.d
            if b[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return Self.internalIPv4(Array(b[12...])) }       // 64:ff9b::/96
            if b[0..<15].allSatisfy({ $0 == 0 }) { return true }         // :: and ::1
            if b[0] & 0xFE == 0xFC { return true }                       // fc00::/7 unique-local
            if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return true }       // fe80::/10 link-local
            if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return true }       // fec0::/10 site-local (deprecated)
            if b[0] == 0xFF { return true }                              // multicast
            if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return true }  // 2001:db8::/32 documentation
            return false
        }
        return Self.internalIPv4(bytes)
    }

    /// 127.0.0.0/8, ::1, or an IPv4-mapped loopback address.
    public var isLoopback: Bool {
        if isIPv6 {
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        }
        return bytes[0] == 127
    }

    static func internalIPv4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return true                      // this network, private, loopback
        case (100, 64...127): return true                                // shared address space (carrier NAT)
        case (169, 254): return true                                     // link-local (cloud metadata)
        case (172, 16...31), (192, 168): return true                     // private
        case (192, 0) where b[2] == 0 || b[2] == 2: return true          // IETF protocol assignments, documentation
        case (198, 18...19): return true                                 // benchmarking
        case (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: return true  // documentation
        case (224...255, _): return true                                 // multicast, reserved, broadcast
        default: return false
        }
    }

    /// Every address `host` resolves to now (a literal address is itself).
    /// - Throws: ``HTTPClientError/unreachable(_:)`` when the name does not resolve.
    public static func resolve(host: String) throws(HTTPClientError) -> [OutboundAddress] {
        if let literal = OutboundAddress(host) { return [literal] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &result)
        guard status == 0, let first = result else { throw .unreachable("\(host) does not resolve") }
        defer { freeaddrinfo(first) }
        var addresses: [OutboundAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            if let sockaddr = info.pointee.ai_addr {
                switch info.pointee.ai_family {
                case AF_INET:
                    var address = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    addresses.append(OutboundAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }))
                case AF_INET6:
                    var address = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    addresses.append(OutboundAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }))
                default: break
                }
            }
            next = info.pointee.ai_next
        }
        var seen = Set<OutboundAddress>()
        let unique = addresses.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { throw .unreachable("\(host) has no address") }
        return unique
    }
}
