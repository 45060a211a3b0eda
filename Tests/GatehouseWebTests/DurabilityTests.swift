@testable import Gatehouse
import GatehouseTesting
import GatehouseWeb
import SQLite
import Storage
import Testing
import ThrowawayPostgres

/// What an acknowledged change survives: by default every commit of the server's writer is synced (`synchronous =
/// FULL`), so a power cut loses no counter, nonce or token it answered for; `--durability normal` is the explicit,
/// cheaper choice. (A killed process loses nothing either way: `AppAttestAPITests` and `CrashTests` kill and reopen.)
@Suite("Durability of acknowledged changes", .enabled(if: !ThrowawayPostgres.endToEnd, "reads SQLite's own settings"))
struct DurabilityTests {
    static func writerSynchronous(_ app: TestApp) throws -> SQLValue? {
        try app.application.domain.store.database.write { try $0.queryOne("PRAGMA synchronous")?.value(at: 0) }
    }

    @Test func theServersWriterSyncsEveryCommitByDefault() throws {
        #expect(try Self.writerSynchronous(try TestApp()) == .integer(2))  // FULL
        #expect(Configuration().domain.durability == .full)
    }

    @Test func normalIsAnExplicitChoice() throws {
        #expect(try Self.writerSynchronous(try TestApp { $0.domain.durability = .normal }) == .integer(1))  // NORMAL
        let (parsed, _) = try Configuration.parse(["--durability", "normal"], environment: [:])
        #expect(parsed.domain.durability == .normal)
        let (fromVariable, _) = try Configuration.parse([], environment: ["GATEHOUSE_DURABILITY": "FULL"])
        #expect(fromVariable.domain.durability == .full)
        #expect(throws: ConfigurationError.self) { try Configuration.parse(["--durability", "off"], environment: [:]) }
    }
}
