extension URLEncoding {
    /// Percent-encodes `s` for a URL path segment or query value (RFC 3986 §2.1): unreserved characters
    /// (`A–Z a–z 0–9 - . _ ~`, §2.3) stay, every other UTF-8 byte becomes `%XX`. With `spaceAsPlus`, a space becomes
    /// `+`, as `application/x-www-form-urlencoded` writes it.
    public static func percentEncode<S: StringProtocol>(_ s: S, spaceAsPlus: Bool = false) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
