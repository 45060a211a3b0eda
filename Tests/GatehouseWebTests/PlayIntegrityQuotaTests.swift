import AttestationTesting
import FakeGoogle
import Foundation
import GatehouseTesting
import JSON
import Testing

/// Google's daily quota against replayed and junk tokens (DEVICE-API.md "Play Integrity"), over a real socket with
/// the fake Google: a token judged in the last 10 minutes is never sent again, junk Google cannot open is not kept
/// among the failures the key check tries, and the calls are counted per environment and day (`/metrics`, the
/// checklist's `android.googleQuota` against `playIntegrity.dailyQuota`).
@Suite("Play Integrity: Google's quota")
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
        for token in ["status:400", "status:500", "status:403"] { _ = try server.playIntegrity(apiKey: apiKey, token: token) }
        #expect(try decodes().count == 4)
        // Replayed, each gets the earlier judgement (or verdictReplayed) without a call.
        for _ in 0..<5 {
            #expect(try server.playIntegrity(apiKey: apiKey, token: good).verdict == "rejected verdictReplayed")
            #expect(try server.playIntegrity(apiKey: apiKey, token: "status:400").verdict == "forged decryptionFailed")
            #expect(try server.playIntegrity(apiKey: apiKey, token: "status:500").verdict == "unavailable googleUnreachable")
            #expect(try server.playIntegrity(apiKey: apiKey, token: "status:403").verdict == "unavailable serviceAccountRejected")
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
        for i in 0..<3 { #expect(try server.playIntegrity(apiKey: apiKey, token: "status:400.a\(i).b.c.d").verdict == "forged decryptionFailed") }
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
        let set = try server.client.send("PATCH", path, headers: auth, body: Array(#"{"playIntegrity": {"dailyQuota": 5}}"#.utf8))
        #expect(set.json?["playIntegrity"]?["dailyQuota"]?.integer == 5, "\(set.text)")
        #expect(set.json?["playIntegrity"]?["serviceAccount"]?["set"]?.bool == true, "setting the quota kept the credentials")

        func quotaItem() throws -> String {
            let item = try server.checklistItem(environmentID, "android.googleQuota")
            return item?["status"]?.string ?? "missing"
        }
        #expect(try quotaItem() == "ok")
        for i in 0..<3 { _ = try server.playIntegrity(apiKey: apiKey, token: "status:500.\(i)") }
        #expect(try quotaItem() == "ok")   // 60 %
        _ = try server.playIntegrity(apiKey: apiKey, token: "status:500.3")
        #expect(try quotaItem() == "warn") // 80 %
        _ = try server.playIntegrity(apiKey: apiKey, token: "status:500.4")
        #expect(try quotaItem() == "fail") // 100 %
        // Replays spend nothing: still 5 calls.
        _ = try server.playIntegrity(apiKey: apiKey, token: "status:500.4")
        #expect(try decodes().count == 5)
        // null sets the default back.
        let reset = try server.client.send("PATCH", path, headers: auth, body: Array(#"{"playIntegrity": {"dailyQuota": null}}"#.utf8))
        #expect(reset.json?["playIntegrity"]?["dailyQuota"]?.integer == 10_000)
        #expect(try quotaItem() == "ok")
    }
}
