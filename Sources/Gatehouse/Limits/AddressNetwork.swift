#if canImport(Glibc)
import Glibc
#endif

/// The network a per-address budget counts a client under (docs/device-api.md "Per-address budgets and IPv6"): an
/// IPv6 client by its `/64` (one subscriber or host usually holds a whole `/64`, and rotating addresses inside it must
/// not buy a fresh budget), an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 address, an IPv4 address as
/// itself. Every per-address budget keys by it: Google decodes, the device API's rate limits, the login throttle's
/// address part. The audit log keeps the full address.
public enum AddressNetwork {
    /// The budget key of `address` (an IPv4 or IPv6 literal, with or without brackets or a zone): `192.0.2.7`,
    /// `2001:db8:1:2::/64`. Anything that is not an address is its own key.
    public static func key(_ address: String) -> String {
        var text = Substring(address)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard text.contains(":"), let bytes = ipv6(String(text)) else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12...].map { String($0) }.joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    /// The 16 bytes of an IPv6 literal (RFC 4291 §2.2 text forms), read by the C library's `inet_pton`; nil if it is
    /// not one.
    static func ipv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        let parsed = withUnsafeMutableBytes(of: &address) { buffer in inet_pton(AF_INET6, text, buffer.baseAddress) }
        guard parsed == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }
}
