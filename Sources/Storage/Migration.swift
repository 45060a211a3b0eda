/// One migration file (`NNNN_name.sql`), read and hashed: what every engine's migrator applies once, in number
/// order, recording its name and SHA-256 in `schema_migrations`.
public struct Migration: Sendable {
    /// The leading four-digit number.
    public let number: Int
    /// The file name without `.sql`: what `schema_migrations.name` records.
    public let name: String
    /// The file name, for messages.
    public let fileName: String
    /// The file's text.
    public let sql: String
    /// SHA-256 of the file's bytes, lowercase hex.
    public let sha256: String

    /// The number of a well-formed migration name (`NNNN_name`, with or without `.sql`); nil otherwise.
    public static func number(of name: String) -> Int? {
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

extension Migration {
    /// A migration recorded in a database's `schema_migrations`.
    public struct Applied: Sendable {
        public let name: String
        public let sha256: String

        public init(name: String, sha256: String) {
            self.name = name
            self.sha256 = sha256
        }
    }

    /// Refuses a database whose applied migrations were edited, deleted, or are newer than `migrations` (the files).
    /// - Throws: `MigrationError.changed`, `.missing` or `.newerThanCode`.
    public static func check(applied: [Applied], against migrations: [Migration]) throws {
        let files = Dictionary(migrations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newestFile = migrations.last?.number ?? -1
        for record in applied {
            if let file = files[record.name] {
                guard file.sha256 == record.sha256 else { throw MigrationError.changed(file.fileName) }
            } else if let number = Migration.number(of: record.name), number > newestFile {
                throw MigrationError.newerThanCode(record.name + ".sql")
            } else {
                throw MigrationError.missing(record.name + ".sql")
            }
        }
    }
}
