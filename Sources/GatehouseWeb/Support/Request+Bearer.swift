import Crypto
import HTTP

extension Request {
    /// The credentials of the `Authorization: Bearer …` header (RFC 6750 §2.1: the scheme in any case, then white
    /// space), without surrounding white space; nil when the header is missing, names another scheme or carries
    /// nothing. Read over UTF-8 bytes: every API request authenticates.
    var bearerCredentials: String? { credentials(scheme: "bearer") }

    /// The password of `Authorization: Basic base64(user:password)` (RFC 7617), the user ignored; nil when the
    /// header is missing, names another scheme, or does not decode. For proxies that can send credentials only in
    /// the address they call (Traefik's `ForwardAuth`).
    var basicPassword: String? {
        guard let encoded = credentials(scheme: "basic"), let decoded = Base64.decode(encoded),
              let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let password = decoded[decoded.index(after: colon)...]
        return password.isEmpty ? nil : String(decoding: password, as: UTF8.self)
    }

    /// The credentials after `scheme` (lower-case letters, matched in any case) in the `Authorization` header.
    private func credentials(scheme: String) -> String? {
        guard let value = headers["Authorization"] else { return nil }
        let utf8 = value.utf8
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = utf8.startIndex
        while start != utf8.endIndex, isBlank(utf8[start]) { start = utf8.index(after: start) }
        for expected in scheme.utf8 {
            // Setting bit 0x20 lower-cases an ASCII letter; no other byte becomes one of these letters.
            guard start != utf8.endIndex, utf8[start] | 0x20 == expected else { return nil }
            start = utf8.index(after: start)
        }
        guard start != utf8.endIndex, isBlank(utf8[start]) else { return nil }
        while start != utf8.endIndex, isBlank(utf8[start]) { start = utf8.index(after: start) }
        var end = utf8.endIndex
        while end > start, isBlank(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        guard start != end else { return nil }
        return String(value[start..<end])
    }
}
