import JSON

extension Verdicts {
    /// A raw row's `reasons`: the reasons as a JSON array of strings (what `JSON.array(…).text` writes), written
    /// straight to bytes.
    static func reasonsText(_ reasons: [String], buffer: inout [UInt8]) -> String {
        if reasons.isEmpty { return "[]" }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(UInt8(ascii: "["))
        for (i, reason) in reasons.enumerated() {
            if i > 0 { buffer.append(UInt8(ascii: ",")) }
            JSON.writeString(reason, into: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
        return String(decoding: buffer, as: UTF8.self)
    }

    /// A raw row's `observed`: the fields as a JSON object with members sorted by name (what `JSON.object(…).text`
    /// of the sorted dictionary writes), written straight to bytes.
    static func observedText(_ observed: [String: String], buffer: inout [UInt8]) -> String {
        if observed.isEmpty { return "{}" }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(UInt8(ascii: "{"))
        for (i, (name, value)) in observed.sorted(by: { $0.key < $1.key }).enumerated() {
            if i > 0 { buffer.append(UInt8(ascii: ",")) }
            JSON.writeString(name, into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            JSON.writeString(value, into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
        return String(decoding: buffer, as: UTF8.self)
    }
}
