import DomainTesting
import Crypto
import Foundation
@testable import Gatehouse
import Testing
import TestThreads

/// Decisions about admins that read before they write, held on both engines and across two servers of one
/// PostgreSQL database (READ COMMITTED): the login throttle, the last active owner, and a sign-in that straddles a
/// password change.
@Suite("Admins: decisions under concurrency")
struct AdminRaceTests {
    static let password = "correct horse battery staple"

    /// Two domains on one database as two servers (on SQLite, one domain twice: one process holds the file).
    static func twoServers(_ engine: DomainEngine) throws -> (EngineStore, Domain) {
        let first = try engine.open()
        guard first.postgres != nil else { return (first, first.domain) }
        return (first, try first.fixture.anotherServer())
    }

    /// Sixteen wrong guesses at one account from sixteen addresses, sent at once through two servers: exactly the
    /// policy's free failures are judged, every other one waits (each attempt is counted before its check, and the
    /// check and the count are one decision at a time).
    @Test(arguments: DomainEngine.allCases)
    func parallelGuessesThroughTwoServersMeetTheThrottle(_ engine: DomainEngine) throws {
        let (first, second) = try Self.twoServers(engine)
        try first.domain.admins.create(email: "frank@example.com", password: Self.password, role: .viewer, actor: .system)
        let servers = [first.domain.sessions, second.sessions]
        let outcomes = concurrently(16) { i -> String in
            do {
                _ = try servers[i % 2].login(email: "frank@example.com", password: "parallel guess \(i)", address: "192.0.2.\(i)")
                return "signed in"
            } catch DomainError.unauthenticated {
                return "refused"
            } catch DomainError.throttled {
                return "throttled"
            } catch {
                return "\(error)"
            }
        }
        let free = SessionPolicy().delayAfterFailures
        #expect(outcomes.filter { $0 == "refused" }.count == free, "\(outcomes)")
        #expect(outcomes.filter { $0 == "throttled" }.count == 16 - free, "\(outcomes)")
    }

    /// Two owners demote (or disable) each other at the same moment through two servers: one wins, the other is
    /// told there would be no active owner left, and one active owner remains.
    @Test(arguments: DomainEngine.allCases)
    func twoOwnersDemotingEachOtherLeaveOneOwner(_ engine: DomainEngine) throws {
        let (first, second) = try Self.twoServers(engine)
        for round in 0..<8 {
            let admins = first.domain.admins
            let a = try admins.create(email: "a\(round)@example.com", password: Self.password, role: .owner, actor: .system)
            let b = try admins.create(email: "b\(round)@example.com", password: Self.password, role: .owner, actor: .system)
            let disable = round % 2 == 1
            let services = [first.domain.admins, second.admins]
            _ = concurrently(2) { i -> Bool in
                let target = i == 0 ? b.id : a.id
                if disable {
                    return (try? services[i].setDisabled(id: target, disabled: true, actor: .system)) != nil
                }
                return (try? services[i].setRole(id: target, role: .editor, actor: .system)) != nil
            }
            let owners = try admins.list().filter { $0.role == .owner && !$0.disabled }
            #expect(owners.count == 1, "round \(round) (\(disable ? "disable" : "demote")): \(owners.map(\.email))")
            // Back to no active owner for the next round's pair to be the only ones.
            for owner in owners { try first.store.write { db in try AdminsTable.setDisabled(db, id: owner.id, disabled: true, now: 0) } }
        }
    }

    /// A sign-in with the old password whose check ends just before a change of that password opens no session:
    /// the change commits between the check and the session's insert (the test's hook), and the sign-in is refused.
    @Test(arguments: DomainEngine.allCases)
    func aSignInStraddlingAPasswordChangeOpensNothing(_ engine: DomainEngine) throws {
        let (first, second) = try Self.twoServers(engine)
        let admin = try first.domain.admins.create(email: "grace@example.com", password: Self.password, role: .owner, actor: .system)
        var sessions = first.domain.sessions
        let other = second.admins
        sessions.afterPasswordCheck = {
            try other.changePassword(id: admin.id, current: Self.password, new: "a brand new passphrase")
        }
        #expect {
            _ = try sessions.login(email: "grace@example.com", password: Self.password, address: "192.0.2.1")
        } throws: { if case DomainError.unauthenticated = $0 { true } else { false } }
        let open = try first.store.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM sessions")?.int("n") }
        #expect(open == 0)
        // The new password signs in.
        sessions.afterPasswordCheck = {}
        _ = try sessions.login(email: "grace@example.com", password: "a brand new passphrase", address: "192.0.2.1")
    }
}
