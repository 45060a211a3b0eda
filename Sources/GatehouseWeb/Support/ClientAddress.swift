import HTTP

/// Who sent a request, for every user of it (the device rate limit, the login throttle, the audit log): the socket
/// peer, or behind `trustedProxies` reverse proxies the hop the outermost of them appended to `X-Forwarded-For`.
/// Each proxy appends the address it received from, so hops to the left of that one are the client's own words (a
/// client rotating them must not escape a throttle nor write the audit log), and the right-most hop is the one our
/// proxy appended.
struct ClientAddress: Sendable {
    /// How many proxies in front of the server append to `X-Forwarded-For`; 0: none is trusted.
    let trustedProxies: Int

    /// Longest hop taken as an address (an IPv6 literal with a zone fits).
    static let maxHopLength = 64

    /// The client's address: the `trustedProxies`-th hop from the right of every `X-Forwarded-For` field (in order),
    /// or the left-most when there are fewer; the peer when no proxy is trusted, the header is absent, or that hop is
    /// not an address.
    func of(_ request: Request) -> String {
        let peer = request.remoteAddress ?? "unknown"
        guard trustedProxies > 0 else { return peer }
        let hops = request.headers.elements("X-Forwarded-For")
        guard !hops.isEmpty else { return peer }
        let hop = hops[max(0, hops.count - trustedProxies)]
        return Self.isAddress(hop) ? String(hop) : peer
    }

    /// Whether `hop` can be an IPv4 or IPv6 literal (digits, hex letters, dots, colons, a zone or brackets): anything
    /// else (a name, `unknown`, text) is not taken as the client.
    static func isAddress(_ hop: Substring) -> Bool {
        !hop.isEmpty && hop.utf8.count <= maxHopLength && hop.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
            default: ".:[]%".utf8.contains(byte)
            }
        }
    }
}
