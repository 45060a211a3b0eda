import TestSupport
import ChildProcess
import Foundation
import GatehouseTesting
import Testing

/// The `gatehouse` executable as a user runs it: flags, errors and exit codes.
@Suite("Command line", .serialized)
struct CommandLineTests {
    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:], timeout: TimeInterval = 30) throws -> Run {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GATEHOUSE_") }
        for (k, v) in environment { env[k] = v }
        let run = try CommandRun(try CommandRun.gatehouse(), arguments, input: Array((input ?? "").utf8), environment: env,
                                 directory: repositoryRoot, timeout: timeout)
        return Run(status: run.status, output: run.outputText, error: run.error)
    }

    static func temporaryDatabase() throws -> String {
        let dir = NSTemporaryDirectory() + "gatehouse-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/db.sqlite"
    }

    @Test func helpDescribesEveryFlag() throws {
        let top = try Self.run(["--help"])
        #expect(top.status == 0)
        for command in ["serve", "migrate", "admin create", "token create", "backup"] { #expect(top.output.contains(command)) }
        let serve = try Self.run(["serve", "--help"])
        #expect(serve.status == 0)
        for flag in ["--host", "--port", "--database", "--master-key", "--demo", "GATEHOUSE_PORT"] { #expect(serve.output.contains(flag)) }
    }

    @Test func badAddressesAreClearErrors() throws {
        let database = try Self.temporaryDatabase()
        let bad = try Self.run(["serve", "--host", "not-an-address", "--port", "0", "--database", database])
        #expect(bad.status != 0)
        #expect(bad.error.contains("invalid listen address"))
        let port = try Self.run(["serve", "--port", "99999", "--database", database])
        #expect(port.status == 2)
        #expect(port.error.contains("--port"))
        let unknown = try Self.run(["serve", "--colour", "blue"])
        #expect(unknown.status == 2)
        #expect(unknown.error.contains("unknown option --colour"))

        // A taken port: bind it with a listening socket first.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        listen(fd, 1)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let taken = Int(UInt16(bigEndian: address.sin_port))
        let busy = try Self.run(["serve", "--port", String(taken), "--database", database])
        #expect(busy.status != 0)
        #expect(busy.error.contains("address already in use"))
    }

    @Test func adminCreateReadsThePasswordFromStandardInput() throws {
        let database = try Self.temporaryDatabase()
        let short = try Self.run(["admin", "create", "--email", "a@example.com", "--database", database], input: "short\n")
        #expect(short.status == 1)
        #expect(short.error.contains("at least 12 characters"))
        let ok = try Self.run(["admin", "create", "--email", "a@example.com", "--role", "editor", "--database", database], input: "a long enough passphrase\n")
        #expect(ok.status == 0, "\(ok.error)")
        #expect(ok.output.contains("a@example.com"))
        #expect(!ok.output.contains("a long enough passphrase"))
        let again = try Self.run(["admin", "create", "--email", "A@example.com", "--database", database], input: "a long enough passphrase\n")
        #expect(again.status == 1)
    }

    @Test func tokensAreRandomAndPrintedOnce() throws {
        let database = try Self.temporaryDatabase()
        let a = try Self.run(["token", "create", "--name", "ci", "--scope", "write", "--database", database])
        let b = try Self.run(["token", "create", "--name", "ci", "--scope", "read", "--database", database])
        #expect(a.status == 0 && b.status == 0)
        let tokenA = a.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(tokenA.hasPrefix("gtm_"))
        #expect(tokenA.count == 4 + 52)  // 256 random bits in base32
        #expect(tokenA != b.output.trimmingCharacters(in: .whitespacesAndNewlines))
        let db = try Data(contentsOf: URL(fileURLWithPath: database))
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: database + "-wal"))) ?? Data()
        #expect(db.range(of: Data(tokenA.utf8)) == nil && wal.range(of: Data(tokenA.utf8)) == nil)
        #expect(try Self.run(["token", "create", "--name", "x", "--scope", "admin", "--database", database]).status == 2)
    }

    @Test func wrongMasterKeyRefusesToStart() throws {
        let database = try Self.temporaryDatabase()
        let key1 = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let key2 = Data((0..<32).map { UInt8(255 - $0) }).base64EncodedString()
        #expect(try Self.run(["migrate", "--database", database], environment: ["GATEHOUSE_MASTER_KEY": key1]).status == 0)
        let wrong = try Self.run(["migrate", "--database", database], environment: ["GATEHOUSE_MASTER_KEY": key2])
        #expect(wrong.status == 1)
        #expect(wrong.error.contains("another master key"))
        let short = try Self.run(["migrate", "--database", database], environment: ["GATEHOUSE_MASTER_KEY": "c2hvcnQ="])
        #expect(short.status == 1)
    }

    @Test func aBrokenTemplateStopsStartUpNamingItsPlace() throws {
        let database = try Self.temporaryDatabase()
        let resources = (database as NSString).deletingLastPathComponent + "/resources"
        let fm = FileManager.default
        for folder in ["Public", "Migrations", "Templates"] {
            try fm.copyItem(atPath: repositoryRoot + "/" + folder, toPath: resources + "/" + folder)
        }
        let page = resources + "/Templates/pages/login.mustache"
        try "{{<layouts/base}}\n{{$content}}\n  {{#broken}}\n{{/content}}\n{{/layouts/base}}\n".write(toFile: page, atomically: true, encoding: .utf8)
        let run = try Self.run(["serve", "--port", "0", "--database", database, "--resources", resources])
        #expect(run.status == 1)
        #expect(run.error.contains("pages/login.mustache:4:1: closing tag \"content\" does not match section \"broken\" opened at 3:3"), "\(run.error)")
    }

    @Test func backupWritesAConsistentCopy() throws {
        let database = try Self.temporaryDatabase()
        #expect(try Self.run(["token", "create", "--name", "ci", "--scope", "write", "--database", database]).status == 0)
        let copy = database + ".backup"
        let backup = try Self.run(["backup", copy, "--database", database])
        #expect(backup.status == 0, "\(backup.error)")
        #expect(FileManager.default.fileExists(atPath: copy))
        #expect(try Self.run(["backup", copy, "--database", database]).status == 2)  // refuses to overwrite
    }
}
