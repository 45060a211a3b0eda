import Crypto
import DomainTesting
import Foundation
@testable import Gatehouse
import Testing
import ThrowawayPostgres

/// The engines the store contract suite runs on (docs/architecture.md "Storage: one seam, two engines"), each opening a
/// migrated, empty domain on a clock the test moves.
extension DomainEngine {
    /// A fresh domain on this engine, its clock at `now` (unix seconds), its passwords hashed at argon2id's least
    /// cost (the suites race sign-ins and first owners, not the hash); `configure` changes the configuration first.
    func open(now: Int64 = 1_800_000_000, configure: (inout DomainConfiguration) -> Void = { _ in }) throws -> EngineStore {
        try EngineStore(DomainFixture(self, now: now) { configuration in
            configuration.passwordHashing = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)
            configure(&configuration)
        })
    }
}

/// A domain on an engine (``DomainFixture``), seen from the store's side: the store, the clock, and the services.
final class EngineStore: Sendable {
    let fixture: DomainFixture

    init(_ fixture: DomainFixture) {
        self.fixture = fixture
    }

    var domain: Domain { fixture.domain }
    var store: Store { fixture.domain.store }
    var clock: TestClock { fixture.clock }
    /// The PostgreSQL database of this domain, dropped with it; nil on SQLite.
    var postgres: ThrowawayPostgres.Database? { fixture.postgres }

    /// A new environment of `kind`, with its default keys.
    func environment(_ name: String = "Contract", kind: EnvironmentKind = .production) throws -> (environment: Environment, keys: [IssuedKey]) {
        try domain.environments.create(name: name, kind: kind, actor: .system)
    }
}
