/// One migration file, read and hashed.
struct Migration: Sendable {
    /// The leading four-digit number.
    let number: Int
    /// The file name without `.sql`: what `schema_migrations.name` records.
    let name: String
    /// The file name, for messages.
    let fileName: String
    /// The file's text.
    let sql: String
    /// SHA-256 of the file's bytes, lowercase hex.
    let sha256: String

    /// The number of a well-formed migration name (`NNNN_name`, with or without `.sql`); nil otherwise.
    static func number(of name: String) -> Int? {
        let stem = name.hasSuffix(".sql") ? String(name.dropLast(4)) : name
        let utf8 = Array(stem.utf8)
        guard utf8.count >= 6, utf8[4] == UInt8(ascii: "_"),
            utf8[0..<4].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            utf8[5...].allSatisfy(isNameByte)
        else { return nil }
        return utf8[0..<4].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
