import Crypto
import Foundation
@testable import Gatehouse
import Testing
import ThrowawayPostgres

/// The engines the store contract suite runs on (DESIGN.md "Storage: one seam, two engines"): each opens a migrated,
/// empty store on a clock the test moves: SQLite, and PostgreSQL (a database of its own in the server `make test`
/// starts; without it the PostgreSQL cases fail, saying so).
enum StoreEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    /// A database of its own in the throwaway PostgreSQL that `make test` starts (Tests/with-postgres.sh).
    case postgresql

    var testDescription: String { rawValue }

    /// The repository's migrations folder, found from this file's path (every store of the domain tests opens it).
    static let migrations: String = {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.path + "/Migrations"
    }()

    /// A fresh store on this engine, its clock at `now` (unix seconds).
    func open(now: Int64 = 1_800_000_000) throws -> EngineStore {
        try EngineStore(engine: self, now: now)
    }
}

/// A store on an engine, with its clock and a folder removed when the test is done.
final class EngineStore: Sendable {
    let store: Store
    let clock: ManualClock
    let directory: String
    /// The PostgreSQL database made for this store, dropped with it.
    let postgres: ThrowawayPostgres.Database?
    /// The master key the store was opened with (a second store on the same database needs it).
    let masterKey: [UInt8]

    init(engine: StoreEngine, now: Int64) throws {
        clock = ManualClock(now)
        directory = NSTemporaryDirectory() + "gatehouse-contract-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let clock = self.clock
        let masterKey = try SecureRandom.bytes(32)
        self.masterKey = masterKey
        switch engine {
        case .sqlite:
            postgres = nil
            store = try Store.open(path: directory + "/db.sqlite", migrationsDirectory: StoreEngine.migrations,
                                   masterKey: masterKey, clock: Clock(wall: { clock.now })).store
        case .postgresql:
            let database = try ThrowawayPostgres.database()
            postgres = database
            store = try Store.open(postgresURL: database.url, migrationsDirectory: StoreEngine.migrations,
                                   masterKey: masterKey, poolSize: 12, clock: Clock(wall: { clock.now })).store
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A new environment of `kind`, with its default keys.
    func environment(_ name: String = "Contract", kind: EnvironmentKind = .production) throws -> (environment: Environment, keys: [IssuedKey]) {
        try Environments(store: store).create(name: name, kind: kind, actor: .system)
    }
}
