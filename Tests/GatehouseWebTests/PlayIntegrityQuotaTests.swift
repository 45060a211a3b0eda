import AttestationTesting
import FakeGoogle
import Foundation
import GatehouseTesting
import JSON
import Testing

/// Google's daily quota against replayed and junk tokens (docs/device-api.md "Play Integrity"), over a real socket with
/// the fake Google: a token judged in the last 10 minutes is never sent again, junk Google cannot open is not kept
/// among the failures the key check tries, and the calls are counted per environment and day (`/metrics`, the
/// checklist's `android.googleQuota` against `playIntegrity.dailyQuota`).
@Suite("Play Integrity: Google's quota", .needsSyntheticCA, .needsFakeGoogleTLS)
struct PlayIntegrityQuotaTests {
    let fake: FakeGoogle
    let server: DeviceServer
    let fixture: PlayIntegrityFixture
    let environmentID: String
    let apiKey: String

    init() throws {
        fake = try FakeGoogle()
        server = try DeviceServer(google: fake)
        fixture = try PlayIntegrityFixture()
        (environmentID, apiKey) = try server.googleEnvironment(fixture, fake: fake, privateKeyPEM: try TestKeys.rsaPrivateKeyPEM())
    }

    /// Calls to decodeIntegrityToken the fake received so far.
    func decodes() throws -> [String] {
        try fake.received().filter { $0.path.hasSuffix(":decodeIntegrityToken") }.map(\.body)
    }

    @Test func aTokenJudgedRecentlyIsNeverSentToGoogleAgain() throws {
        let good = PlayIntegrityFixture.fakeGoogleToken(fixture.payload(nowMillis: PlayIntegrityFixture.nowMillis))
        #expect(try server.playIntegrity(apiKey: apiKey, token: good).verdict == "verified")
        for token in ["status:400", "status:500", "status:403"].map(FakeGoogle.token) { _ = try server.playIntegrity(apiKey: apiKey, token: token) }
        #expect(try decodes().count == 4)
        // Replayed, each gets the earlier judgement (or verdictReplayed) without a call.
        for _ in 0..<5 {
            #expect(try server.playIntegrity(apiKey: apiKey, token: good).verdict == "rejected verdictReplayed")
            #expect(try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:400")).verdict == "forged decryptionFailed")
            #expect(try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:500")).verdict == "unavailable googleUnreachable")
            #expect(try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:403")).verdict == "unavailable serviceAccountRejected")
        }
        #expect(try decodes().count == 4, "a replayed or junk token cost another call to Google")
        // Counted per environment: /metrics says 4, and so does the Apps tab for today.
        let metrics = try server.client.send("GET", "/metrics").text
        #expect(metrics.contains("gatehouse_play_integrity_google_decodes_total{environment=\"\(environmentID)\"} 4"), "\(metrics.suffix(400))")
        let browser = DashboardBrowser(client: server.client)
        try browser.createOwner(setupPath: try server.setupPath(), email: "owner@example.com", password: "correct horse battery staple")
        let signedIn = try browser.signIn("owner@example.com", "correct horse battery staple")
        let session = try #require(DashboardBrowser.cookie("gatehouse_session", in: signedIn))
        let apps = try server.client.send("GET", "/environments/\(environmentID)/apps", headers: [("Cookie", session)])
        #expect(apps.text.contains("<dd id=\"google-decodes-today\">4 of 10,000"), "the Apps tab does not show today's decodes")
    }

    @Test func junkGoogleCannotOpenIsNotKeptForTheKeyCheck() throws {
        // Local keys that open nothing sent here, and the service account: local fails, then Google is asked.
        let other = try PlayIntegrityMinter.random()
        try server.patch(environmentID, .object([JSON.Member("playIntegrity", .object([JSON.Member("local", PlayIntegrityFixture.keys(other))]))]))
        // Shaped like a JWE (five segments), but Google cannot decode it either: junk.
        for i in 0..<3 { #expect(try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:400.a\(i).b.c.d")).verdict == "forged decryptionFailed") }
        // A genuine token the local keys cannot open (Google can): kept, since it shows the keys are wrong.
        let genuine = try fixture.token(fixture.payload(nowMillis: PlayIntegrityFixture.nowMillis))
        _ = try server.playIntegrity(apiKey: apiKey, token: genuine)
        let check = try server.checkKeys(environmentID, PlayIntegrityFixture.keys(fixture.minter))
        #expect(check.status == 200, "\(check.text)")
        #expect(check.json?["tried"]?.integer == 1, "junk pushed real failures into the key check: \(check.text)")
        #expect(check.json?["decrypted"]?.integer == 1)
    }

    @Test func theDailyQuotaIsSetAndTheChecklistHoldsTodaysCallsAgainstIt() throws {
        let auth = [("Authorization", "Bearer " + server.token), ("Content-Type", "application/json")]
        let path = "/api/management/v1/environments/\(environmentID)"
        #expect(try server.client.send("GET", path, headers: auth).json?["playIntegrity"]?["dailyQuota"]?.integer == 10_000)
        for bad in [#"{"playIntegrity": {"dailyQuota": 0}}"#, #"{"playIntegrity": {"dailyQuota": "many"}}"#, #"{"playIntegrity": {"dailyQuota": 1.5}}"#] {
            let refused = try server.client.send("PATCH", path, headers: auth, body: Array(bad.utf8))
            #expect(refused.status == 422, "\(bad)")
            #expect(refused.json?["errors"]?.array?.first?["pointer"]?.string == "/playIntegrity/dailyQuota", "\(bad)")
        }
        let set = try server.client.send("PATCH", path, headers: auth, body: Array(#"{"playIntegrity": {"dailyQuota": 10}}"#.utf8))
        #expect(set.json?["playIntegrity"]?["dailyQuota"]?.integer == 10, "\(set.text)")
        #expect(set.json?["playIntegrity"]?["serviceAccount"]?["set"]?.bool == true, "setting the quota kept the credentials")

        func quotaItem() throws -> String {
            let item = try server.checklistItem(environmentID, "android.googleQuota")
            return item?["status"]?.string ?? "missing"
        }
        #expect(try quotaItem() == "ok")
        for i in 0..<7 { _ = try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:500.\(i)")) }
        #expect(try quotaItem() == "ok")   // 70 %
        _ = try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:500.7"))
        #expect(try quotaItem() == "warn") // 80 %
        _ = try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:500.8"))
        #expect(try quotaItem() == "warn") // 90 %
        // The last 5 % are kept back (9.5 of 10): no call, for anyone, and the phone hears why.
        let held = try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:500.9"))
        #expect(held.verdict == "unavailable googleBudgetExceeded", "\(held.text)")
        #expect(try decodes().count == 9)
        // Replays spend nothing either.
        _ = try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:500.8"))
        #expect(try decodes().count == 9)
        // null sets the default back.
        let reset = try server.client.send("PATCH", path, headers: auth, body: Array(#"{"playIntegrity": {"dailyQuota": null}}"#.utf8))
        #expect(reset.json?["playIntegrity"]?["dailyQuota"]?.integer == 10_000)
        #expect(try quotaItem() == "ok")
    }

    /// Anyone with the public key can send tokens: junk (not a compact JWE) costs no call, and one client address may
    /// cause only `--google-decodes-per-address` calls an hour; past it its tokens are unavailable
    /// `googleBudgetExceeded` without a call, while another address is still served. Only calls sent are counted.
    @Test func junkCostsNoCallAndEachAddressHasAnHourlyBudget() throws {
        let budgeted = try DeviceServer(google: fake, ["--trusted-proxies", "1", "--google-decodes-per-address", "3"])
        let (environment, key) = try budgeted.googleEnvironment(fixture, fake: fake, privateKeyPEM: try TestKeys.rsaPrivateKeyPEM())
        func judge(_ token: String, from address: String) throws -> PlainHTTP.Response {
            try budgeted.client.send("POST", "/api/v4/attestation/play-integrity", headers: [("Content-Type", "application/json"), ("X-Forwarded-For", address)],
                                     body: PlayIntegrityFixture.request(apiKey: key, token: token).serialized())
        }
        let before = try decodes().count
        let oversized = FakeGoogle.token("status:500") + String(repeating: "A", count: 16 * 1024)
        let junk = ["junk", "a.b.c.d.e", "e30.e30.AA.AA.AA", "not base64!.e30.AA.AA.AA", oversized] + (0..<40).map { "junk-\($0)" }
        for (i, token) in junk.enumerated() {
            let answer = try judge(token, from: "198.51.100.\(i % 200 + 1)")
            #expect(answer.verdict == "forged decryptionFailed", "\(token.prefix(20)): \(answer.text)")
        }
        #expect(try decodes().count == before, "junk reached Google")

        let attacker = "203.0.113.66"
        for i in 0..<3 { #expect(try judge(FakeGoogle.token("status:500.budget\(i)"), from: attacker).verdict == "unavailable googleUnreachable") }
        let refused = FakeGoogle.token("status:500.budget3")
        #expect(try judge(refused, from: attacker).verdict == "unavailable googleBudgetExceeded")
        #expect(try decodes().count == before + 3)
        // Another address is served meanwhile, and the refused token was not spent: it may come back from elsewhere.
        let genuine = PlayIntegrityFixture.fakeGoogleToken(fixture.payload(nowMillis: PlayIntegrityFixture.nowMillis))
        #expect(try judge(genuine, from: "192.0.2.10").verdict == "verified")
        #expect(try judge(refused, from: "192.0.2.10").verdict == "unavailable googleUnreachable")
        #expect(try decodes().count == before + 5)
        let metrics = try budgeted.client.send("GET", "/metrics").text
        #expect(metrics.contains("gatehouse_play_integrity_google_decodes_total{environment=\"\(environment)\"} 5"), "\(metrics.suffix(400))")
    }
}
