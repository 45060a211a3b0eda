import Storage

/// The store's SQL takes `?` placeholders (SQLite's); PostgreSQL numbers them: `$1`, `$2`… in order. A `?` inside a
/// quoted string ('…'), a quoted identifier ("…") or a `--` comment is left alone. SQL whose quoting this scan cannot
/// follow is refused rather than numbered wrong: block comments (`/* */`), dollar quoting (`$$`, `$tag$`), escape
/// strings (`E'…'`, where `\'` does not end the string) and PostgreSQL's `?` operators (`?|`, `?&`, `?-`, `?#`), which
/// a placeholder cannot be told from.
enum Placeholders {
    /// `sql` with its placeholders numbered.
    /// - Throws: `StorageError(.other)` naming the construct, for SQL this scan cannot number safely (a programmer
    ///   error: the store's tables never write it).
    static func numbered(_ sql: String) throws -> String {
        var out: [UInt8] = []
        out.reserveCapacity(sql.utf8.count + 8)
        var count = 0
        var quote: UInt8?
        var comment = false
        var previous: UInt8 = 0
        let bytes = Array(sql.utf8)
        func refuse(_ what: String) -> StorageError {
            StorageError(.other, "cannot number the placeholders of SQL with \(what): write it without, or with parameters")
        }
        for (index, byte) in bytes.enumerated() {
            defer { previous = byte }
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if comment {
                if byte == UInt8(ascii: "\n") { comment = false }
            } else if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                if byte == UInt8(ascii: "'"), previous == UInt8(ascii: "E") || previous == UInt8(ascii: "e"),
                   index < 2 || !Self.isWordByte(bytes[index - 2]) {
                    throw refuse("an escape string (E'…')")
                }
                quote = byte
            } else if byte == UInt8(ascii: "-") && previous == UInt8(ascii: "-") {
                comment = true
            } else if byte == UInt8(ascii: "*") && previous == UInt8(ascii: "/") {
                throw refuse("a block comment (/* */)")
            } else if byte == UInt8(ascii: "$") && (next == UInt8(ascii: "$") || Self.isWordByte(next) && !(next >= 0x30 && next <= 0x39)) {
                throw refuse("dollar quoting ($$)")
            } else if byte == UInt8(ascii: "?") {
                if next == UInt8(ascii: "|") || next == UInt8(ascii: "&") || next == UInt8(ascii: "-") || next == UInt8(ascii: "#") {
                    throw refuse("a ? operator (?| ?& ?- ?#)")
                }
                count += 1
                out += Array("$\(count)".utf8)
                continue
            }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `byte` can be part of an identifier (ASCII letters, digits, `_`).
    static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
    }
}
