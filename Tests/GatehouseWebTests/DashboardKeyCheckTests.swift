import AttestationTesting
import Gatehouse
import GatehouseTesting
import JSON
import Testing

/// Saving local Play Integrity keys in the dashboard runs the key check on the environment's recent failures and says
/// what it found: as a warning when the keys decrypt and verify none of them, as a plain confirmation otherwise.
@Suite("Dashboard: local keys checked when saved")
struct DashboardKeyCheckTests {
    @Test func savedKeysAreTriedOnRecentFailuresAndWrongOnesAreAWarning() throws {
        let app = try TestApp()
        let owner = try app.signIn(role: .owner)
        let services = app.application.domain
        let (environment, issued) = try services.environments.create(name: "Production", kind: .production, actor: .system)
        let apiKey = try #require(issued.first { $0.key.type == .public }?.key.publicValue)
        let fixture = try PlayIntegrityFixture()
        // The keys set are not the app's, so its tokens fail to decrypt and are kept as recent failures.
        let registration = fixture.registration(playIntegrity: fixture.localKeys(try PlayIntegrityMinter.random()))
        _ = try services.environments.patch(environment.id, with: try EnvironmentPatch.parse(registration), actor: .system)
        for _ in 0..<3 {
            let token = try fixture.token(fixture.payload(nowMillis: app.clock.now * 1000))
            let response = app.send("POST", "/api/v4/attestation/play-integrity", json: PlayIntegrityFixture.request(apiKey: apiKey, token: token))
            #expect(response.status == 200, "\(response.text)")
            #expect(response.text.contains("decryptionFailed"), "\(response.text)")
        }

        func save(_ minter: PlayIntegrityMinter) -> String {
            let saved = app.postForm("/environments/\(environment.id)/play-integrity/local",
                                     ["decryptionKey": minter.decryptionKeyBase64, "verificationKey": minter.verificationKeyBase64], session: owner)
            #expect(saved.status == 303)
            return app.send("GET", "/environments/\(environment.id)/apps", headers: owner.headers).text
        }

        let wrong = save(try PlayIntegrityMinter.random())
        #expect(wrong.contains("<div class=\"flash warn\" role=\"alert\">Local keys set"), "\(wrong)")
        #expect(wrong.contains("They decrypt none of the 3 tokens that failed in the last 24 hours: they are not the keys of com.example.app.</div>"))

        // The right decryption key with another verification key: decrypted, not verified, still a warning.
        let halfRight = PlayIntegrityMinter(decryptionKey: fixture.minter.decryptionKey, signingKey: try PlayIntegrityMinter.random().signingKey)
        #expect(save(halfRight).contains("<div class=\"flash warn\" role=\"alert\">Local keys set"))

        let right = save(fixture.minter)
        #expect(right.contains("<div class=\"flash\" role=\"status\">Local keys set"), "\(right)")
        #expect(right.contains("These keys decrypt all 3 tokens that failed in the last 24 hours (com.example.app).</div>"))
        // The message is shown once.
        #expect(!app.send("GET", "/environments/\(environment.id)/apps", headers: owner.headers).text.contains("class=\"flash"))
    }
}
