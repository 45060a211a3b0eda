import DomainTesting
import Attestation
import AttestationTesting
import Crypto
import FakeGoogle
import Foundation
@testable import Gatehouse
import JSON
import Testing
import TestSupport
import TestThreads
import ThrowawayPostgres

/// When the receipt refresher tries a key (docs/device-api.md "Refresh"): pure schedule rules, then the background pass on
/// the domain with an injected clock against the fake Apple: not within an hour of registration, at the key's time of
/// day, a day after a new receipt and not before its not-before, backed off after 429/5xx, and on two servers of one
/// PostgreSQL each due key once.
@Suite("Receipt refresh schedule", .serialized, .needsFakeGoogleTLS)
struct ReceiptRefreshScheduleTests {
    // MARK: the schedule, pure

    @Test(arguments: [[UInt8](repeating: 0, count: 32), [UInt8](repeating: 0xFF, count: 32), Array(0..<32)])
    func theFirstTryIsAnHourAfterRegistrationAtTheKeysTimeOfDay(keyID: [UInt8]) {
        let registered: Int64 = 1_796_000_123
        let first = AppleReceiptSchedule.first(keyID: keyID, registeredAt: registered)
        #expect(first >= registered + 3600 && first < registered + 3600 + 86_400)
        #expect(((first % 86_400) + 86_400) % 86_400 == AppleReceiptSchedule.spread(keyID))
    }

    @Test func theNextTryIsADayLaterAndNotBeforeTheReceiptsNotBefore() {
        let key = Array(repeating: UInt8(7), count: 32), now: Int64 = 1_796_000_000
        #expect(AppleReceiptSchedule.next(keyID: key, now: now, notBefore: nil) >= now + 86_400)
        #expect(AppleReceiptSchedule.next(keyID: key, now: now, notBefore: now + 3 * 86_400) >= now + 3 * 86_400)
        #expect(AppleReceiptSchedule.next(keyID: key, now: now, notBefore: now + 3 * 86_400) < now + 4 * 86_400)
    }

    @Test func backOffDoublesToADayWithJitter() {
        let now: Int64 = 1_796_000_000
        let waits = (1...12).map { AppleReceiptSchedule.backOff(failures: $0, now: now, jitter: 0) - now }
        #expect(Array(waits.prefix(4)) == [300, 600, 1200, 2400])
        #expect(waits.last == 86_400)
        #expect(AppleReceiptSchedule.backOff(failures: 1, now: now, jitter: 1) - now == 150)
        // Jittered waits of one failure count spread over half the wait.
        let spread = Set((0..<50).map { _ in AppleReceiptSchedule.backOff(failures: 3, now: now, jitter: Double.random(in: 0...1)) })
        #expect(spread.count > 10 && spread.allSatisfy { $0 > now + 600 && $0 <= now + 1200 })
    }

    // MARK: the background pass on the domain

    static let appId = "ABCDE12345.com.example.refresh"

    /// A domain on `engine` trading with `fake`, the clock at the real now (the synthetic certificates start then),
    /// an environment with the app id and a DeviceCheck key the fake accepts.
    struct World {
        let fixture: DomainFixture
        let fake: FakeApple
        let environment: Environment
        let deviceCheck: ECPrivateKey
        var domain: Domain { fixture.domain }
        var clock: TestClock { fixture.clock }

        init(_ engine: DomainEngine) throws {
            let ca = try SyntheticAppAttest()
            let receipts = try #require(ca.receipts)
            fake = try FakeApple(signerPEM: receipts.signerPEM, signerKeyPEM: receipts.signerKeyPEM, chainPEM: receipts.intermediatePEM)
            files = try TemporaryDirectory("gatehouse-refresh")
            let files = self.files
            try ca.rootPEM.write(toFile: files.file("roots.pem"), atomically: true, encoding: .utf8)
            try receipts.rootPEM.write(toFile: files.file("receipt-roots.pem"), atomically: true, encoding: .utf8)
            let fake = self.fake
            // Jitter in the middle of its range: each back-off is 3/4 of its base, so the test's "within" bounds
            // hold for every draw (with the system's draws, one in ~150 runs backed off the whole 5 minutes).
            fixture = try DomainFixture(engine, now: Int64(Date().timeIntervalSince1970), configure: { configuration in
                configuration.appAttestRoots = files.file("roots.pem")
                configuration.appAttestReceiptRoots = files.file("receipt-roots.pem")
                configuration.appAttestDataEndpoint = fake.baseURL
                configuration.outboundCAFile = fake.caFile
                configuration.appAttestRefresh = .manual
            }, random: { 0.5 })
            deviceCheck = try ECPrivateKey.generate()
            let environments = fixture.domain.environments
            let created = try environments.create(name: "R", kind: .production, actor: .system).environment
            environment = try environments.patch(created.id, with: try EnvironmentPatch.parse([
                "appleAppIds": [.string(Self.appId)],
                "appAttest": ["deviceCheckKey": ["keyId": "ABC123DEFG", "teamId": "ABCDE12345", "privateKey": .string(deviceCheck.pkcs8PEM)]],
            ]), actor: .system)
            self.ca = ca
            try tellFake()
        }

        let ca: SyntheticAppAttest
        /// The roots files (kept while the world lives: another server reads them when it opens).
        let files: TemporaryDirectory
        static let appId = ReceiptRefreshScheduleTests.appId

        /// The fake's clock follows the test clock (it checks the JWT's iat and dates new receipts by it).
        func tellFake() throws {
            let spki = Base64.encode(deviceCheck.publicKey.derSubjectPublicKeyInfo)
            try fake.configure(keyID: "ABC123DEFG", teamID: "ABCDE12345",
                               publicKeyPEM: "-----BEGIN PUBLIC KEY-----\n\(spki)\n-----END PUBLIC KEY-----\n", now: clock.now)
        }

        /// A registered key that has asserted once.
        func activeKey() throws -> SyntheticKey {
            let challenge = try domain.appAttest.issueChallenge(for: environment).challenge
            let key = try ca.attest(appId: Self.appId, clientDataHash: SHA256.hash(Array(challenge.utf8)))
            // Its leaf starts when openssl made it: a moment after the clock was read.
            if clock.now < key.validAt { clock.set(key.validAt) }
            let registered = try domain.appAttest.register(in: environment, keyID: key.keyId, challenge: challenge, attestation: key.attestation)
            #expect(registered.verdict.isVerified, "\(registered.verdict)")
            #expect(registered.observed.receipt?.isValid == true)
            let asserted = try domain.appAttest.assert(in: environment, keyID: key.keyId, clientData: [1], assertion: try key.assertion(counter: 1, clientData: [1]))
            #expect(asserted.verdict.isVerified)
            return key
        }

        /// One background pass now; the refreshes the fake has received in all.
        func backgroundPass() throws -> Int {
            try tellFake()
            _ = try domain.receiptRefresher.pass(environmentID: nil)
            return try fake.refreshes().count
        }

        func advance(to time: Int64) throws {
            clock.set(time)
            try tellFake()
        }
    }

    @Test func theBackgroundPassFollowsTheScheduleAndBacksOff() throws {
        let world = try World(.ofThisPass)
        let key = try world.activeKey()
        let registered = world.clock.now
        let first = AppleReceiptSchedule.first(keyID: key.keyId, registeredAt: registered)
        #expect(try world.backgroundPass() == 0, "not within an hour of registration")
        try world.advance(to: first - 1)
        #expect(try world.backgroundPass() == 0, "not before the key's time")

        // Due: Apple answers 503, then 429: each backs off (5 minutes, then 10, less up to half of it).
        try world.fake.answer([["status": 503], ["status": 429], ["status": 200, "riskMetric": 3]])
        try world.advance(to: first)
        #expect(try world.backgroundPass() == 1)
        #expect(try world.backgroundPass() == 1, "backed off: not tried again at once")
        try world.advance(to: first + 299)
        #expect(try world.backgroundPass() == 2, "tried again within 5 minutes")
        try world.advance(to: first + 299 + 299)
        let afterSecond = try world.backgroundPass()
        try world.advance(to: first + 299 + 600)
        #expect(try world.backgroundPass() == 3, "tried again within 10 minutes of the second failure (\(afterSecond))")

        // Refreshed: the metric is the key's; the next try is a day later, after the receipt's not-before.
        let state = try world.domain.store.read { db in try AttestedKeysTable.load(db, keyID: key.keyId, environmentID: world.environment.id) }
        #expect(state?.riskMetric == 3)
        try world.advance(to: world.clock.now + 86_400 - 3600)
        #expect(try world.backgroundPass() == 3, "not again the same day")
        try world.advance(to: world.clock.now + 2 * 86_400)
        #expect(try world.backgroundPass() == 4)
        #expect(try world.domain.receiptRefresher.metrics(environmentID: world.environment.id, from: registered, to: world.clock.now + 1).counts
                    == [1, 0, 0, 0, 0], "the latest metric per key (the default answer: 1)")
    }

    @Test(.enabled(if: !ThrowawayPostgres.endToEnd, "on PostgreSQL in every pass already")) func twoServersOnPostgreSQLTryEachDueKeyOnce() throws {
        let world = try World(.postgresql)
        let other = try world.fixture.anotherServer()
        let keys = try (0..<5).map { _ in try world.activeKey() }
        try world.advance(to: world.clock.now + 2 * 86_400)
        try world.fake.answer((0..<5).map { _ in ["status": 200, "riskMetric": 2, "delay": 0.3] })
        let domains = [world.domain, other]
        _ = concurrently(2) { i in (try? domains[i].receiptRefresher.pass(environmentID: nil))?.values.first?.tried ?? -1 }
        let sent = try world.fake.refreshes().compactMap { $0["keyIdHex"] as? String }
        #expect(sent.sorted() == keys.map { Hex.encode($0.keyId) }.sorted(), "each due key once across the two servers")
    }
}
