/// The store's SQL takes `?` placeholders (SQLite's); PostgreSQL numbers them: `$1`, `$2`… in order. A `?` inside a
/// quoted string ('…'), a quoted identifier ("…") or a `--` comment is left alone.
enum Placeholders {
    static func numbered(_ sql: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(sql.utf8.count + 8)
        var count = 0
        var quote: UInt8?
        var comment = false
        var previous: UInt8 = 0
        for byte in sql.utf8 {
            defer { previous = byte }
            if comment {
                if byte == UInt8(ascii: "\n") { comment = false }
            } else if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if byte == UInt8(ascii: "-") && previous == UInt8(ascii: "-") {
                comment = true
            } else if byte == UInt8(ascii: "?") {
                count += 1
                out += Array("$\(count)".utf8)
                continue
            }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
