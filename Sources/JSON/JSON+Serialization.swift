extension JSON {
    /// The compact UTF-8 serialization (members in order, no insignificant whitespace).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return out
    }

    /// The serialization as a String.
    public var text: String { String(decoding: serialized(), as: UTF8.self) }

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: b ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .number(let n): out.append(contentsOf: Array(Self.format(n).utf8))
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                e.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, m) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(m.key, into: &out)
                out.append(UInt8(ascii: ":"))
                m.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func format(_ n: Double) -> String {
        if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
        return "\(n)"
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Writes `s` as a JSON string: bytes that need no escape are copied in runs, straight from the string's UTF-8.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        var s = s
        s.withUTF8 { bytes in
            var run = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                let escape: UInt8
                switch b {
                case 0x22: escape = 0x22
                case 0x5C: escape = 0x5C
                case 0x0A: escape = UInt8(ascii: "n")
                case 0x0D: escape = UInt8(ascii: "r")
                case 0x09: escape = UInt8(ascii: "t")
                // Control characters, and < > & so that JSON embedded in HTML can never close a tag: \u00XX.
                case 0..<0x20, 0x7F, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"): escape = UInt8(ascii: "u")
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                out.append(0x5C)
                out.append(escape)
                if escape == UInt8(ascii: "u") {
                    out.append(0x30)
                    out.append(0x30)
                    out.append(hexDigits[Int(b >> 4)])
                    out.append(hexDigits[Int(b & 0xF)])
                }
                run = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
        }
        out.append(0x22)
    }
}
