import Foundation
import Gatehouse
import TestSupport
import Testing
import ThrowawayPostgres

/// The engines a domain test runs on: SQLite (a new file), and PostgreSQL (a database of its own in the server
/// `make test` starts, Tests/with-postgres.sh; without it the PostgreSQL cases fail, saying so).
public enum DomainEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    /// A database of its own in the throwaway PostgreSQL that `make test` starts (Tests/with-postgres.sh).
    case postgresql

    public var testDescription: String { rawValue }

    /// The engine `make test`'s pass runs the web suites on: PostgreSQL in its PostgreSQL and pgBouncer passes.
    public static var ofThisPass: DomainEngine { ThrowawayPostgres.endToEnd ? .postgresql : .sqlite }
}

/// A domain opened as a server opens it (``Domain/open(_:clock:log:)``) on a new database of either engine, on the
/// one test clock, with this repository's migrations; the folder (and the PostgreSQL database) go with it. The domain
/// tests use it alone; the web's in-process client (`TestApp`) builds its application over one.
public final class DomainFixture: Sendable {
    public let domain: Domain
    /// The wall clock the domain reads; its monotonic time follows it, unless the fixture was made with the system's.
    public let clock: TestClock
    /// Whether the domain's monotonic time is the system's (``TestClock/injected``) rather than the test clock's.
    let systemMonotonic: Bool
    /// What the domain was opened with (a second server of the same PostgreSQL database opens with it too).
    public let configuration: DomainConfiguration
    /// The folder holding the SQLite file and anything else the test writes.
    public let directory: TemporaryDirectory
    /// The PostgreSQL database made for this fixture, dropped with it; nil on SQLite.
    public let postgres: ThrowawayPostgres.Database?

    /// A new database on `engine` with the clock at `now` (unix seconds: every test says when it runs), and the
    /// domain opened over it, writing its lines to `log`; `configure` changes the configuration first. With
    /// `systemMonotonic` the domain's monotonic time (rate limits, how recently it followed other servers) is the
    /// system's, as in a served process; otherwise it moves with the test clock.
    /// - Throws: what opening the domain throws (a PostgreSQL that `make test` did not start names itself).
    /// `random` draws the jitter of retries (the system's unless a test needs the back-off where it can see it).
    public init(_ engine: DomainEngine, now: Int64, systemMonotonic: Bool = false, log: DomainLog = .silent,
                configure: (inout DomainConfiguration) -> Void = { _ in },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) throws {
        directory = try TemporaryDirectory("gatehouse-domain")
        clock = TestClock(now)
        self.systemMonotonic = systemMonotonic
        var configuration = DomainConfiguration()
        configuration.resources = repositoryRoot
        // No test reaches Google: a closed loopback port, unless the test serves a status list itself.
        configuration.keyAttestationStatusURL = "http://127.0.0.1:9/attestation/status"
        switch engine {
        case .sqlite:
            postgres = nil
            configuration.database = directory.file("gatehouse.sqlite")  // its master key in a key file beside it
        case .postgresql:
            let database = try ThrowawayPostgres.database()
            postgres = database
            configuration.database = database.url
            configuration.masterKey = ThrowawayPostgres.masterKey()
            configuration.databasePreparedStatements = !ThrowawayPostgres.pooled
            configuration.databasePool = 12
        }
        configure(&configuration)
        self.configuration = configuration
        domain = try Domain.open(configuration, clock: Self.domainClock(clock, systemMonotonic: systemMonotonic), random: random, log: log)
    }

    static func domainClock(_ clock: TestClock, systemMonotonic: Bool) -> TimeSource {
        systemMonotonic ? clock.injected : TimeSource(wall: { clock.now })
    }

    /// Another server of this fixture's database (PostgreSQL), on `clock` (this fixture's unless given).
    /// - Throws: what opening the domain throws.
    public func anotherServer(clock: TestClock? = nil) throws -> Domain {
        try Domain.open(configuration, clock: Self.domainClock(clock ?? self.clock, systemMonotonic: systemMonotonic))
    }
}
