import AttestationTesting
import Foundation
import JSON
import Testing

/// Keys checked before they are trusted: the recent failures, tried with candidate keys without saving them.
@Suite("Play Integrity key check", .needsSyntheticCA)
struct PlayIntegrityKeyCheckTests {
    @Test func candidateKeysAreTriedOnRecentFailures() throws {
        let server = try DeviceServer(["--device-rate-per-address", "0"])
        let fixture = try PlayIntegrityFixture()
        let (id, apiKey) = try server.environment(kind: "production", appIds: [])
        // The keys set are not the app's: the app's tokens are encrypted with others.
        try server.patch(id, fixture.registration(playIntegrity: fixture.localKeys(try PlayIntegrityMinter.random())))
        let now = PlayIntegrityFixture.nowMillis
        for _ in 0..<6 {
            let token = try fixture.token(fixture.payload(nowMillis: now))
            #expect(try server.playIntegrity(apiKey: apiKey, token: token).verdict == "forged decryptionFailed")
        }
        // Garbage is judged but not kept: it has no JWE's shape.
        #expect(try server.playIntegrity(apiKey: apiKey, token: "garbage").verdict == "forged decryptionFailed")

        let right = try server.checkKeys(id, PlayIntegrityFixture.keys(fixture.minter))
        #expect(right.status == 200, "\(right.text)")
        #expect(right.json?["tried"]?.integer == 6)
        #expect(right.json?["decrypted"]?.integer == 6)
        #expect(right.json?["verified"]?.integer == 6)
        #expect(right.json?["packages"]?.array?.compactMap(\.string) == [PlayIntegrityFixture.packageName])

        // The right decryption key with another verification key: decrypted, not verified.
        let halfRight = PlayIntegrityMinter(decryptionKey: fixture.minter.decryptionKey, signingKey: try PlayIntegrityMinter.random().signingKey)
        let half = try server.checkKeys(id, PlayIntegrityFixture.keys(halfRight))
        #expect(half.json?["decrypted"]?.integer == 6)
        #expect(half.json?["verified"]?.integer == 0)

        let random = try server.checkKeys(id, PlayIntegrityFixture.keys(try PlayIntegrityMinter.random()))
        #expect(random.json?["tried"]?.integer == 6)
        #expect(random.json?["decrypted"]?.integer == 0)
        #expect(random.json?["packages"]?.array?.isEmpty == true)

        // Nothing was saved: the environment's tokens still fail.
        #expect(try server.playIntegrity(apiKey: apiKey, token: try fixture.token(fixture.payload(nowMillis: now))).verdict == "forged decryptionFailed")
        // Saving the right keys: the next token decodes.
        try server.patch(id, .object([JSON.Member("playIntegrity", fixture.localKeys())]))
        #expect(try server.playIntegrity(apiKey: apiKey, token: try fixture.token(fixture.payload(nowMillis: now))).verdict == "verified")
    }

    @Test func keysThatCannotBePlayKeysAreNamed() throws {
        let server = try DeviceServer()
        let (id, _) = try server.environment(kind: "production", appIds: [])
        let wrong: JSON = ["decryptionKey": "c2hvcnQ=", "verificationKey": "bm90IGEga2V5"]
        let response = try server.checkKeys(id, wrong)
        #expect(response.status == 400)
        #expect(response.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        #expect(response.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } == ["/decryptionKey", "/verificationKey"])
        #expect(!response.text.contains("c2hvcnQ"))
        let missing = try server.checkKeys(id, ["decryptionKey": "c2hvcnQ="])
        #expect(missing.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } == ["/decryptionKey", "/verificationKey"])
        let unknown = try server.checkKeys("env_nope", PlayIntegrityFixture.keys(try PlayIntegrityMinter.random()))
        #expect(unknown.status == 404)
        let anonymous = try server.client.send("POST", "/api/management/v1/environments/\(id)/play-integrity/check",
                                               headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(anonymous.status == 401)
    }
}
