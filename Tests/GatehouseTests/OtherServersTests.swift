import Crypto
import Foundation
@testable import Gatehouse
import DomainTesting
import Testing
import ThrowawayPostgres

/// Two stores on one PostgreSQL database, as two servers: what one changes, the other judges by once it has looked
/// at the revisions (woken by the change, or on its next look a second later), and a look after a lost connection
/// empties every cache.
@Suite("Caches follow other servers")
struct OtherServersTests {
    /// Two servers' domains on one new PostgreSQL database, on one clock.
    final class TwoServers {
        let fixture: DomainFixture
        let one: Domain
        let two: Domain
        var clock: TestClock { fixture.clock }
        let database: ThrowawayPostgres.Database

        init() throws {
            fixture = try DomainFixture(.postgresql, now: 1_800_000_000)
            guard let database = fixture.postgres else { throw DomainError.notFound("no PostgreSQL database") }
            self.database = database
            one = fixture.domain
            two = try fixture.anotherServer()
        }
    }

    @Test func aRevokedPublicKeyAndAnEnvironmentChangeReachTheOtherServer() throws {
        let servers = try TwoServers()
        #expect(servers.one.store.isShared && servers.two.store.isShared)
        try servers.two.store.followOtherServers(waitMilliseconds: 0)  // the first look: nothing cached yet
        let (environment, keys) = try servers.one.environments.create(name: "Shared", kind: .production, actor: .system)
        let publicKey = try #require(keys.first { $0.key.type == .public }?.key)
        let value = try #require(publicKey.publicValue)
        let two = servers.two.keys
        #expect(try two.authenticatePublic(value).id == publicKey.id)  // cached on the second server now
        try servers.one.keys.revoke(environmentID: environment.id, keyID: publicKey.id, actor: .system)
        #expect(try two.authenticatePublic(value).id == publicKey.id, "the second server's cache still holds it")
        let started = ContinuousClock.now
        try servers.two.store.followOtherServers(waitMilliseconds: 30_000)  // woken by the commit's NOTIFY, not the timeout
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect { try two.authenticatePublic(value) } throws: { if case DomainError.unauthenticated = $0 { true } else { false } }

        // Attack mode switched on through one server: the other judges by it after a look, without a wake-up too.
        #expect(try servers.two.environments.get(environment.id).attackMode == false)
        var patch = EnvironmentPatch()
        patch.attackMode = true
        _ = try servers.one.environments.patch(environment.id, with: patch, actor: .system)
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        #expect(try servers.two.environments.get(environment.id).attackMode == true)
    }

    @Test func aLookAfterALostConnectionEmptiesEveryCache() throws {
        let servers = try TwoServers()
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        let (environment, _) = try servers.two.environments.create(name: "Before", kind: .production, actor: .system)
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        #expect(try servers.two.environments.get(environment.id).name == "Before")  // cached
        // A change the second server cannot see by its revision (written around the store, as a lost wake-up would
        // leave it), then its listening connection is lost.
        let admin = try ThrowawayPostgres.adminConnection(servers.database)
        try admin.script("UPDATE environments SET name = 'After'")
        #expect(try servers.two.environments.get(environment.id).name == "Before")
        try admin.script("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()")
        // The wake-up of the second server's own create may still be on its way and end a look early; a lost
        // connection is reported by the first look that waits on it.
        var reported = false
        for _ in 0..<3 where !reported {
            do { try servers.two.store.followOtherServers(waitMilliseconds: 1_000) } catch is DomainError { reported = true }
        }
        #expect(reported)
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        #expect(try servers.two.environments.get(environment.id).name == "After")
    }

    /// A server that has completed no look for 3 seconds answers nothing from a cache that decides access: it reads
    /// through (here a key deleted around the store, which no revision announces, is refused at once).
    @Test func aServerThatHasNotLookedForThreeSecondsReadsThrough() throws {
        let servers = try TwoServers()
        let (environment, keys) = try servers.one.environments.create(name: "Stale", kind: .production, actor: .system)
        let value = try #require(keys.first { $0.key.type == .public }?.key.publicValue)
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        let two = servers.two.keys
        _ = try two.authenticatePublic(value)  // cached
        let admin = try ThrowawayPostgres.adminConnection(servers.database)
        try admin.script("DELETE FROM api_keys WHERE environment_id = '\(environment.id)'")
        servers.clock.advance(by: 3)
        #expect(try two.authenticatePublic(value).environmentID == environment.id, "3 s after the last look the cache still answers")
        servers.clock.advance(by: 1)
        #expect(servers.two.store.freshness.isStale)
        #expect { try two.authenticatePublic(value) } throws: { if case DomainError.unauthenticated = $0 { true } else { false } }
        // A look makes the cache answer again.
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        #expect(!servers.two.store.freshness.isStale)
    }

    /// A change typed into PostgreSQL by hand moves no revision; `gatehouse caches reset` (``Store/announceOutsideChanges()``)
    /// makes every server forget what it cached at its next look.
    @Test func anAnnouncedOutsideChangeReachesTheOtherServer() throws {
        let servers = try TwoServers()
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        let (environment, _) = try servers.one.environments.create(name: "Before", kind: .production, actor: .system)
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        #expect(try servers.two.environments.get(environment.id).name == "Before")  // cached
        let admin = try ThrowawayPostgres.adminConnection(servers.database)
        try admin.script("UPDATE environments SET name = 'Typed by hand'")
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        #expect(try servers.two.environments.get(environment.id).name == "Before", "nothing announced the change")
        try servers.one.store.announceOutsideChanges()
        try servers.two.store.followOtherServers(waitMilliseconds: 0)
        #expect(try servers.two.environments.get(environment.id).name == "Typed by hand")
    }
}
