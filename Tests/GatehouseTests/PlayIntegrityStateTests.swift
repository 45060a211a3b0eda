import DomainTesting
import Attestation
import AttestationTesting
import Crypto
import Foundation
@testable import Gatehouse
import JSON
import Synchronization
import Storage
import Testing

/// The Play Integrity state in the store, through the service: spent token hashes kept exactly as long as the token
/// could pass the freshness check, one winner among concurrent presentations, and the recent failures kept (50, for
/// 24 hours) for the key check.
@Suite("Play Integrity state")
final class PlayIntegrityStateTests: Sendable {
    let fixture: DomainFixture
    var clock: TestClock { fixture.clock }
    var store: Store { fixture.domain.store }
    let service: PlayIntegrityService
    let minter: PlayIntegrityMinter
    let digest = [UInt8](repeating: 0x5A, count: 32)
    let environment: Environment

    init() throws {
        fixture = try DomainFixture(.sqlite, now: 1_795_000_000)
        service = fixture.domain.playIntegrity
        minter = try PlayIntegrityMinter.random()
        let environments = fixture.domain.environments
        let created = try environments.create(name: "P", kind: .production, actor: .system).environment
        environment = try environments.patch(created.id, with: try EnvironmentPatch.parse([
            "androidApps": [["packageName": "com.example.app", "certificateDigests": [.string(Hex.encode(digest, uppercase: true, separator: ":"))]]],
            "playIntegrity": ["local": ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]],
        ]), actor: .system)
    }

    func token(offsetSeconds: Int64 = 0, minter: PlayIntegrityMinter? = nil) throws -> String {
        let template = PlayIntegrityPayloadTemplate(packageName: "com.example.app", certificateDigest: digest, requestHash: "h",
                                                    timestampMillis: (clock.now + offsetSeconds) * 1000)
        return try (minter ?? self.minter).token(template.json)
    }

    func judge(_ token: String) throws -> [String] {
        let verdict = try service.judge(in: environment, packageName: "com.example.app", requestHash: "h", token: token).judgement.verdict
        return [verdict.status.rawValue] + verdict.reasons
    }

    @Test func aSpentHashLivesWhileTheTokenIsFresh() throws {
        // Made 10 minutes ahead: fresh until 20 minutes from now, that second included.
        let ahead = try token(offsetSeconds: 600)
        #expect(try judge(ahead) == ["verified"])
        clock.advance(by: 1_200)
        #expect(try service.purgeExpired() == 0)
        #expect(try judge(ahead) == ["rejected", "verdictReplayed"])
        clock.advance(by: 1)
        #expect(try service.purgeExpired() == 0, "kept two minutes more, for servers whose clocks run ahead")
        clock.advance(by: 120)
        #expect(try service.purgeExpired() == 1)

        // Made 9 minutes ago: fresh for one more minute, its last second included.
        let old = try token(offsetSeconds: -540)
        #expect(try judge(old) == ["verified"])
        clock.advance(by: 60)
        #expect(try service.purgeExpired() == 0)
        #expect(try judge(old) == ["rejected", "verdictReplayed"])
        clock.advance(by: 121)
        #expect(try service.purgeExpired() == 1)
        // Already stale: nothing to keep.
        #expect(try judge(try token(offsetSeconds: -601)) == ["rejected", "staleVerdict"])
        #expect(try service.purgeExpired() == 0)
    }

    /// During the second 600 seconds after its timestamp's second, a token with a fraction of a second in its
    /// timestamp is still fresh (`now × 1000 − timestamp < 600 000`): it must be spent, not replayable.
    @Test func aTokenInItsLastFreshSecondIsSpent() throws {
        let start = clock.now
        let template = PlayIntegrityPayloadTemplate(packageName: "com.example.app", certificateDigest: digest, requestHash: "h",
                                                    timestampMillis: start * 1000 + 500)
        let token = try minter.token(template.json)
        clock.advance(by: 600)
        #expect(try judge(token) == ["verified"])
        #expect(try judge(token) == ["rejected", "verdictReplayed"])
        #expect(try judge(token) == ["rejected", "verdictReplayed"])
        #expect(try service.purgeExpired() == 0)
        clock.advance(by: 1)
        #expect(try judge(token) == ["rejected", "staleVerdict"])
        clock.advance(by: 120)
        #expect(try service.purgeExpired() == 1)
    }

    @Test func concurrentPresentationsOfOneTokenHaveOneWinner() throws {
        let token = try self.token()
        let verdicts = Mutex<[[String]]>([])
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            do {
                let verdict = try judge(token)
                verdicts.withLock { $0.append(verdict) }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        let all = verdicts.withLock { $0 }
        #expect(all.filter { $0 == ["verified"] }.count == 1)
        #expect(all.filter { $0 == ["rejected", "verdictReplayed"] }.count == 11)
    }

    @Test func theNewest50FailuresAreKeptFor24Hours() throws {
        let other = try PlayIntegrityMinter.random()
        for _ in 0..<55 {
            #expect(try judge(try token(minter: other)) == ["forged", "decryptionFailed"])
            clock.advance(by: 1)
        }
        let check = fixture.domain.keyCheck
        let found = try check.run(environmentID: environment.id, keys: try other.keys())
        #expect(found.tried == 50)
        #expect(found.decrypted == 50)
        #expect(found.verified == 50)
        #expect(found.packages == ["com.example.app"])
        #expect(try check.run(environmentID: environment.id, keys: try minter.keys()).decrypted == 0)
        // Failed at 5…54 s after the start, now 55 s: 30 s short of a day later, those after 25 s are still recent.
        clock.advance(by: 86_400 - 30)
        #expect(try check.run(environmentID: environment.id, keys: try other.keys()).tried == 29)
        clock.advance(by: 30)
        #expect(try service.purgeExpired() == 50)
        #expect(try check.run(environmentID: environment.id, keys: try other.keys()).tried == 0)
    }
}
