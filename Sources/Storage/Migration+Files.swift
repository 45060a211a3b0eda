#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a migration directory with POSIX calls, so the module needs no Foundation.
extension Migration {
    /// The `.sql` files of `directory` (hidden files and other extensions ignored), checked for names and duplicate
    /// numbers, sorted by number.
    /// - Throws: `MigrationError.unreadable`, `.badFileName` or `.duplicateNumber`.
    public static func load(directory: String) throws -> [Migration] {
        var migrations: [Migration] = []
        for fileName in try fileNames(directory) where fileName.hasSuffix(".sql") && !fileName.hasPrefix(".") {
            guard let number = Migration.number(of: fileName) else {
                throw MigrationError.badFileName(fileName)
            }
            let bytes = try contents(of: directory + "/" + fileName)
            migrations.append(
                Migration(
                    number: number, name: String(fileName.dropLast(4)), fileName: fileName,
                    sql: String(decoding: bytes, as: UTF8.self), sha256: SHA256.hex(bytes)))
        }
        migrations.sort { ($0.number, $0.name) < ($1.number, $1.name) }
        for (earlier, later) in zip(migrations, migrations.dropFirst()) where earlier.number == later.number {
            throw MigrationError.duplicateNumber(earlier.fileName, later.fileName)
        }
        return migrations
    }

    private static func fileNames(_ directory: String) throws -> [String] {
        guard let stream = opendir(directory) else {
            throw MigrationError.unreadable(directory, String(cString: strerror(errno)))
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            names.append(name)
        }
        return names
    }

    private static func contents(of path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw MigrationError.unreadable(path, String(cString: strerror(errno)))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes.append(contentsOf: chunk[0..<count])
            if count < chunk.count { break }
        }
        guard ferror(file) == 0 else {
            throw MigrationError.unreadable(path, "read error")
        }
        return bytes
    }
}
