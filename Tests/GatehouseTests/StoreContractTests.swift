import DomainTesting
import Attestation
import Crypto
import Foundation
@testable import Gatehouse
import Storage
import TestThreads
import Testing

/// The store's contract, on every engine: each table operation that decides a verdict or guards access, through the
/// store's transactions (plain and group-committed), as the services use them. Concurrency is real threads on one
/// store; time is the engine store's clock.
@Suite("Store contract")
struct StoreContractTests {
    @Test(arguments: DomainEngine.allCases)
    func aChallengeIsConsumedOnceAlsoByTenConcurrentConsumers(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let environmentID = try s.environment().environment.id
        let now = s.clock.now
        try s.store.commit { db in try ChallengesTable.insert(db, challenge: "one", environmentID: environmentID, expiresAt: now + 300) }
        #expect(try s.store.commit { db in try ChallengesTable.consume(db, challenge: "one", environmentID: "env_other", now: now) } == false,
                "another environment's challenge")
        #expect(try s.store.commit { db in try ChallengesTable.consume(db, challenge: "one", environmentID: environmentID, now: now) })
        #expect(try s.store.commit { db in try ChallengesTable.consume(db, challenge: "one", environmentID: environmentID, now: now) } == false)

        try s.store.commit { db in try ChallengesTable.insert(db, challenge: "raced", environmentID: environmentID, expiresAt: now + 300) }
        let store = s.store
        let consumed = concurrently(10) { i in
            // Half through group commit, half through plain write transactions: both paths are single-use.
            Result {
                try i % 2 == 0
                    ? store.commit { db in try ChallengesTable.consume(db, challenge: "raced", environmentID: environmentID, now: now) }
                    : store.write { db in try ChallengesTable.consume(db, challenge: "raced", environmentID: environmentID, now: now) }
            }
        }
        // Exactly one consumed it, and every other was told it was gone (none failed: a thrown error is not a loss).
        #expect(consumed.compactMap { try? $0.get() }.count == 10, "\(consumed)")
        #expect(consumed.filter { (try? $0.get()) == true }.count == 1, "\(consumed)")

        try s.store.commit { db in try ChallengesTable.insert(db, challenge: "late", environmentID: environmentID, expiresAt: now + 300) }
        #expect(try s.store.commit { db in try ChallengesTable.consume(db, challenge: "late", environmentID: environmentID, now: now + 300) } == false,
                "expired at its expiry")
        #expect(try s.store.write { db in try ChallengesTable.purge(db, now: now + 300, limit: 10) } == 1)
    }

    /// A registered App Attest key with a fresh counter window (its public key is never checked here).
    static func freshKey(_ keyID: [UInt8], environmentID: String, at now: Int64) -> AttestedKey {
        AttestedKey(keyID: keyID, environmentID: environmentID, publicKey: [0x04] + [UInt8](repeating: 1, count: 64),
                    appID: "ABCDE12345.com.example.app", attestationEnvironment: .production, counter: .fresh, createdAt: now, lastUsedAt: nil)
    }

    /// The counter commit after a lost race: the window moved between the judgement and the commit (another server
    /// committed counter 3 after this one judged counter 5 against a fresh window), so the commit re-reads the stored
    /// window and judges again; what it stores keeps the other's seen counter, so replaying 3 is refused afterwards.
    @Test(arguments: DomainEngine.allCases)
    func aCounterCommitThatLostARaceKeepsTheWinnersSeenCounters(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let environmentID = try s.environment().environment.id
        let keyID = [UInt8](repeating: 9, count: 32)
        let key = Self.freshKey(keyID, environmentID: environmentID, at: s.clock.now)
        #expect(try s.store.commit { db in try AttestedKeysTable.insert(db, key) })
        let now = s.clock.now
        // Judged against the fresh window: 5 moves it to {newest 5}.
        guard case .accept(let accepted5) = CounterWindow.fresh.judge(5) else { Issue.record("5 is not accepted"); return }
        // Meanwhile another writer commits 3 from the fresh window.
        guard case .accept(let accepted3) = CounterWindow.fresh.judge(3) else { Issue.record("3 is not accepted"); return }
        #expect(try s.store.commit { db in try AttestedKeysTable.advance(db, keyID: keyID, from: .fresh, to: accepted3, now: now) })
        let pending = AppAttestService.PendingCounter(keyID: keyID, counter: 5, judgedAgainst: .fresh, accepted: accepted5, now: now)
        let (verdict, stored) = try s.store.commit { db in try AppAttestService.commit(pending, in: db) }
        #expect(verdict.isVerified, "\(verdict)")
        let window = try #require(stored)
        #expect(window.newest == 5)
        #expect(window.judge(3) == .reused, "the winner's counter 3 was lost: it could be replayed (\(window))")
        #expect(try s.store.read { db in try AttestedKeysTable.window(db, keyID: keyID) } == window)
    }

    @Test(arguments: DomainEngine.allCases)
    func aCounterAdvancesConditionallyOneOfTwentyWriters(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let environmentID = try s.environment().environment.id
        let keyID = [UInt8](repeating: 7, count: 32)
        let key = Self.freshKey(keyID, environmentID: environmentID, at: s.clock.now)
        #expect(try s.store.commit { db in try AttestedKeysTable.insert(db, key) })
        #expect(try s.store.commit { db in try AttestedKeysTable.insert(db, key) } == false, "a key registers once")
        let store = s.store
        let now = s.clock.now
        let outcomes = concurrently(20) { i in
            Result {
                try store.commit { db in
                    try AttestedKeysTable.advance(db, keyID: keyID, from: .fresh, to: CounterWindow(newest: UInt32(i + 1), seenBelow: 0), now: now)
                }
            }
        }
        let won = outcomes.compactMap { try? $0.get() }
        #expect(won.count == 20, "a racer failed instead of losing: \(outcomes)")
        #expect(won.filter { $0 }.count == 1, "\(won)")
        let winner = try #require(won.firstIndex(of: true))
        let stored = try s.store.read { db in try AttestedKeysTable.window(db, keyID: keyID) }
        #expect(stored == CounterWindow(newest: UInt32(winner + 1), seenBelow: 0))
        let loaded = try s.store.read { db in try AttestedKeysTable.load(db, keyID: keyID, environmentID: environmentID) }
        #expect(loaded?.lastUsedAt == now)
        #expect(try s.store.read { db in try AttestedKeysTable.load(db, keyID: keyID, environmentID: "env_other") } == nil)
    }

    @Test(arguments: DomainEngine.allCases)
    func aNonceIsSpentOncePerAppAcrossEnvironments(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let later = s.clock.now + 600
        let spend = { (app: String, nonce: String) in
            try s.store.commit { db in try SpentNoncesTable.spend(db, appID: app, nonce: nonce, expiresAt: later) }
        }
        #expect(try spend("com.example.app", "n1"))
        #expect(try spend("com.example.app", "n1") == false, "the nonce is the app's, whichever environment presents it")
        #expect(try spend("com.example.other", "n1"), "another app's nonce space")
        let store = s.store
        let raced = concurrently(10) { _ in Result { try store.commit { db in try SpentNoncesTable.spend(db, appID: "com.example.app", nonce: "n2", expiresAt: later) } } }
        #expect(raced.compactMap { try? $0.get() }.count == 10, "a racer failed instead of losing: \(raced)")
        #expect(raced.filter { (try? $0.get()) == true }.count == 1)
        // Kept two minutes past their expiry (a server whose clock runs ahead must not forget what another judges fresh).
        #expect(try s.store.write { db in try SpentNoncesTable.purge(db, now: later + Tables.clockSkewMargin - 1, limit: 100) } == 0)
        #expect(try spend("com.example.app", "n1") == false)
        #expect(try s.store.write { db in try SpentNoncesTable.purge(db, now: later + Tables.clockSkewMargin, limit: 100) } == 3)
        #expect(try spend("com.example.app", "n1"), "forgotten once it cannot pass the window")
    }

    @Test(arguments: DomainEngine.allCases)
    func aPlayIntegrityTokenIsSpentOnceAndFailedTokensAreKeptCapped(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let environmentID = try s.environment().environment.id
        let now = s.clock.now
        let hash = SHA256.hash(Array("token".utf8))
        let store = s.store
        let outcomes = concurrently(10) { _ in
            Result { try store.commit { db in try SpentIntegrityTokensTable.spend(db, tokenHash: hash, environmentID: environmentID, expiresAt: now + 600) } }
        }
        let replays = outcomes.compactMap { try? $0.get() }
        #expect(replays.count == 10, "a presentation failed instead of being judged: \(outcomes)")
        #expect(replays.filter { !$0 }.count == 1, "one first presentation: \(replays)")

        let kept = FailedIntegrityTokensTable.kept
        for i in 0..<(kept + 5) {
            try s.store.write { db in
                try FailedIntegrityTokensTable.insert(db, tokenHash: SHA256.hash(Array("failed \(i)".utf8)), sealed: [UInt8(i & 0xFF)],
                                                       environmentID: environmentID, now: now + Int64(i))
            }
        }
        let recent = try s.store.read { db in try FailedIntegrityTokensTable.recent(db, environmentID: environmentID, now: now + Int64(kept + 5)) }
        #expect(recent.count == kept)
        #expect(recent.first == [UInt8((kept + 4) & 0xFF)], "newest first")
        #expect(try s.store.read { db in try FailedIntegrityTokensTable.recent(db, environmentID: "env_other", now: now) }.isEmpty)
    }

    @Test(arguments: DomainEngine.allCases)
    func receiptKeysRotate(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let keys = s.domain.receiptKeys
        let first = try keys.prepare()
        #expect(try keys.prepare() == first, "made once")
        let rotated = try keys.rotate()
        #expect(rotated.retired == first && rotated.current != first)
        #expect(try keys.published().keys.map(\.kid) == [rotated.current, first], "the retired key stays published an hour")
        s.clock.advance(by: ReceiptKeys.retiredKeyLifetime)
        #expect(try keys.published().keys.map(\.kid) == [rotated.current])
        let revoked = try keys.rotate(revokeNow: true)
        #expect(try keys.published().keys.map(\.kid) == [revoked.current])
    }

    @Test(arguments: DomainEngine.allCases)
    func setupFormsSentAtOnceMakeOneFirstOwner(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let admins = s.domain.admins
        let outcomes = concurrently(40) { i -> String in
            do {
                _ = try admins.create(email: "owner\(i)@example.com", password: "correct horse battery", role: .owner, actor: .system, onlyIfFirst: true)
                return "created"
            } catch DomainError.conflict {
                return "conflict"
            } catch {
                return "\(error)"
            }
        }
        #expect(outcomes.filter { $0 == "created" }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == "conflict" }.count == 39)
        #expect(try admins.count() == 1, "\(outcomes)")
    }

    @Test(arguments: DomainEngine.allCases)
    func sessionsAreCreatedExpiredAndEnded(_ engine: DomainEngine) throws {
        let s = try engine.open()
        _ = try s.domain.admins.create(email: "ada@example.com", password: "correct horse battery", role: .owner, actor: .system)
        let sessions = s.domain.sessions
        let (token, _) = try sessions.login(email: "ada@example.com", password: "correct horse battery", address: "192.0.2.1")
        #expect(try sessions.session(token)?.admin.email == "ada@example.com")
        #expect(try sessions.session(token + "x") == nil)
        try sessions.logout(token)
        #expect(try sessions.session(token) == nil, "ended")

        let (idle, _) = try sessions.login(email: "ada@example.com", password: "correct horse battery", address: "192.0.2.1")
        s.clock.advance(by: sessions.policy.idleTimeout)
        #expect(try sessions.pruneExpired() == 1)
        #expect(try sessions.session(idle) == nil, "expired")
    }

    @Test(arguments: DomainEngine.allCases)
    func apiKeysAndManagementTokensAreFoundAndRevoked(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let (environment, issued) = try s.environment()
        let keys = s.domain.keys
        let secret = try #require(issued.compactMap(\.secret).first)
        let publicValue = try #require(issued.compactMap(\.key.publicValue).first)
        #expect(try keys.authenticateSecret(secret).environmentID == environment.id)
        #expect(try keys.authenticatePublic(publicValue).environmentID == environment.id)
        #expect { try keys.authenticateSecret(secret + "x") } throws: { if case DomainError.unauthenticated = $0 { true } else { false } }
        let secretKey = try #require(issued.first { $0.key.type == .secret }?.key)
        try keys.revoke(environmentID: environment.id, keyID: secretKey.id, actor: .system)
        #expect { try keys.authenticateSecret(secret) } throws: { if case DomainError.unauthenticated = $0 { true } else { false } }
        let publicKey = try #require(issued.first { $0.key.type == .public }?.key)
        try keys.revoke(environmentID: environment.id, keyID: publicKey.id, actor: .system)
        #expect("a revoked public key is refused at once (the cache follows the table)") {
            try keys.authenticatePublic(publicValue)
        } throws: { if case DomainError.unauthenticated = $0 { true } else { false } }

        let tokens = s.domain.tokens
        let (token, value) = try tokens.create(name: "robot", scope: .write, actor: .system)
        #expect(try tokens.authenticate(value).id == token.id)
        try tokens.revoke(token.id, actor: .system)
        #expect { try tokens.authenticate(value) } throws: { if case DomainError.unauthenticated = $0 { true } else { false } }
    }

    @Test(arguments: DomainEngine.allCases)
    func rollupsAreIncrementedByTwoWritersOfOneHour(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let environmentID = try s.environment().environment.id
        let verdicts = s.domain.verdicts
        let at = s.clock.now - 60
        let batch = (0..<25).map { _ in
            TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "rejected", reasons: ["certificateMismatch"],
                    observed: ["certificateDigest": String(repeating: "AB:", count: 31) + "AB"])
        }
        let accepted = concurrently(2) { _ in (try? verdicts.ingest(batch, environmentID: environmentID)) ?? 0 }
        #expect(accepted == [25, 25])
        let rollups = try verdicts.weekRollups(environmentID: environmentID, now: s.clock.now)
        #expect(rollups.first { $0.reason == nil }?.count == 50)
        let mismatch = try #require(rollups.first { $0.reason == "certificateMismatch" })
        #expect(mismatch.count == 50)
        #expect(mismatch.observed.first { $0.field == "certificateDigest" }?.count == 50)
    }

    @Test(arguments: DomainEngine.allCases)
    func auditEntriesAreWrittenInTheChangesTransaction(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let environmentID = try s.environment().environment.id
        let audit = s.domain.audit
        let before = try audit.list(environmentID: environmentID).entries.count
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            _ = try s.domain.environments.update(environmentID, actor: .system) { _, environment in
                environment.name = "Renamed"
                throw Abandoned()
            }
        }
        #expect(try audit.list(environmentID: environmentID).entries.count == before, "no entry without its change")
        #expect(try s.domain.environments.get(environmentID).name == "Contract")
        var patch = EnvironmentPatch()
        patch.name = "Renamed"
        _ = try s.domain.environments.patch(environmentID, with: patch, actor: .system)
        let entries = try audit.list(environmentID: environmentID).entries
        #expect(entries.count == before + 1)
        #expect(entries.first?.action == "environment.update")
        #expect(try s.domain.environments.get(environmentID).name == "Renamed", "the cache follows the change")
    }

    @Test(arguments: DomainEngine.allCases)
    func aBusyOrBrokenEngineIsTheDomainsUnavailableOrConflict(_ engine: DomainEngine) throws {
        let s = try engine.open()
        let environmentID = try s.environment().environment.id
        // A duplicate primary key through either write path is a conflict, never the engine's own error.
        try s.store.commit { db in try ChallengesTable.insert(db, challenge: "dup", environmentID: environmentID, expiresAt: s.clock.now + 300) }
        // A conflict (409), not merely some domain error: a 503 would tell the client to retry what can never pass.
        #expect {
            try s.store.commit { db in try ChallengesTable.insert(db, challenge: "dup", environmentID: environmentID, expiresAt: s.clock.now + 300) }
        } throws: { if case DomainError.conflict = $0 { true } else { false } }
        #expect {
            try s.store.write { db in try ChallengesTable.insert(db, challenge: "dup", environmentID: environmentID, expiresAt: s.clock.now + 300) }
        } throws: { if case DomainError.conflict = $0 { true } else { false } }
        for kind in [StorageError.Kind.busy, .unavailable] {
            let error = s.store.domainError(StorageError(kind, "test"))
            guard case DomainError.unavailable(_, let retryAfter)? = error as? DomainError else {
                Issue.record("\(kind) is \(error)")
                continue
            }
            #expect(retryAfter == 1)
        }
    }
}
