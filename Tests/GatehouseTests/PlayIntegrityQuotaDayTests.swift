import DomainTesting
import Attestation
import AttestationTesting
import Crypto
import Foundation
@testable import Gatehouse
import JSON
import Simulator
import Testing

/// Quota counted as Google counts (docs/device-api.md "Quota, counted as Google counts"): Pacific days (daylight saving
/// included), and every distinct token that decodes counted once per package, on the day it was judged.
@Suite("Play Integrity quota by Pacific day")
struct PlayIntegrityQuotaDayTests {
    static func unix(_ text: String) -> Int64 { Timestamp.parse(text) ?? 0 }

    @Test(arguments: [
        ("2026-12-03T07:59:59Z", "2026-12-02"), ("2026-12-03T08:00:00Z", "2026-12-03"),     // PST: UTC−8
        ("2026-07-01T06:59:59Z", "2026-06-30"), ("2026-07-01T07:00:00Z", "2026-07-01"),     // PDT: UTC−7
        ("2026-03-08T09:59:59Z", "2026-03-08"), ("2026-03-08T10:00:00Z", "2026-03-08"),     // 02:00 PST becomes 03:00 PDT
        ("2026-03-09T06:59:59Z", "2026-03-08"), ("2026-03-09T07:00:00Z", "2026-03-09"),     // the first PDT midnight
        ("2026-11-01T08:59:59Z", "2026-11-01"), ("2026-11-02T07:59:59Z", "2026-11-01"),     // 02:00 PDT becomes 01:00 PST
        ("2026-11-02T08:00:00Z", "2026-11-02"), ("2025-03-09T10:00:00Z", "2025-03-09"),
    ])
    func daysFollowPacificTime(instant: String, day: String) {
        let pacific = PacificDay(of: Self.unix(instant))
        #expect(pacific.text == day)
        #expect(PacificDay(of: pacific.start).text == day && PacificDay(of: pacific.start - 1).number == pacific.number - 1, "\(instant)")
    }

    @Test func tokensAreCountedOncePerPackageOnThePacificDayTheyWereJudged() throws {
        let fixture = try DomainFixture(.ofThisPass, now: Self.unix("2026-12-03T07:59:50Z"))
        let minter = try PlayIntegrityMinter.random()
        let digest = [UInt8](repeating: 0x5A, count: 32)
        let environments = fixture.domain.environments
        let created = try environments.create(name: "Q", kind: .production, actor: .system).environment
        let environment = try environments.patch(created.id, with: try EnvironmentPatch.parse([
            "androidApps": [["packageName": "com.example.app", "certificateDigests": [.string(Hex.encode(digest, uppercase: true, separator: ":"))]]],
            "playIntegrity": ["local": ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]],
        ]), actor: .system)
        func judge(_ token: String) throws {
            _ = try fixture.domain.playIntegrity.judge(in: environment, packageName: "com.example.app", requestHash: "h", token: token)
        }
        func token() throws -> String {
            try minter.token(PlayIntegrityPayloadTemplate(packageName: "com.example.app", certificateDigest: digest, requestHash: "h",
                                                          timestampMillis: fixture.clock.now * 1000).json)
        }
        let first = try token()
        try judge(first)
        try judge(first)  // a replay: not another token
        try judge("junk.that.decodes.nowhere.x")
        var usage = try environments.playIntegrityUsage(environment.id)
        #expect(usage.day.text == "2026-12-02")
        #expect(usage.tokens == ["com.example.app": 1])

        fixture.clock.advance(by: 20)  // 08:00:10 UTC: a new day at Google
        try judge(try token())
        try judge(try token())
        usage = try environments.playIntegrityUsage(environment.id)
        #expect(usage.day.text == "2026-12-03")
        #expect(usage.tokens == ["com.example.app": 2])
        #expect(fixture.domain.playIntegrity.tokens.totals[[environment.id, "com.example.app"]] == 3)
        // The checklist holds the larger count against the quota and says which it is.
        let quota = try #require(try fixture.domain.checklists.report(for: environment).items.first { $0.id == "android.googleQuota" })
        #expect(quota.detail.hasPrefix("2 of the daily quota of 10,000 tokens phones asked Google for"), "\(quota.detail)")
    }
}
