import AttestationTesting
import Crypto
import Foundation
import JSON
import Testing

/// `POST /api/v4/attestation/play-integrity` over a real socket, decoding with local keys: the verdicts, replay,
/// nothing configured, and the checklist items that real verification raises.
@Suite("Play Integrity device endpoint", .needsSyntheticCA)
struct PlayIntegrityAPITests {
    static let noLimits = ["--device-rate-per-address", "0"]

    @Test func localDecodingJudgesEndToEnd() throws {
        let server = try DeviceServer(Self.noLimits)
        let fixture = try PlayIntegrityFixture()
        let (id, apiKey) = try server.environment(kind: "production", appIds: [])
        try server.patch(id, fixture.registration(playIntegrity: fixture.localKeys()))
        let now = PlayIntegrityFixture.nowMillis

        let token = try fixture.token(fixture.payload(nowMillis: now))
        let verified = try server.playIntegrity(apiKey: apiKey, token: token)
        #expect(verified.status == 200, "\(verified.text)")
        #expect(verified.verdict == "verified")
        #expect(verified.json?["decodedBy"]?.string == "local")
        let observed = try #require(verified.json?["observed"])
        #expect(observed["packageName"]?.string == PlayIntegrityFixture.packageName)
        #expect(observed["certificateDigests"]?.array?.first?.string == Hex.encode(fixture.digest, uppercase: true, separator: ":"))
        #expect(observed["appRecognitionVerdict"]?.string == "PLAY_RECOGNIZED")
        #expect(observed["deviceRecognitionVerdict"]?.array?.first?.string == "MEETS_DEVICE_INTEGRITY")

        // The same token again: spent before the first answer.
        #expect(try server.playIntegrity(apiKey: apiKey, token: token).verdict == "rejected verdictReplayed")
        // Spent tokens survive a crash (committed before the answer).
        try server.restart(after: SIGKILL)
        #expect(try server.playIntegrity(apiKey: apiKey, token: token).verdict == "rejected verdictReplayed")

        // Representative reasons, each through the whole server.
        let cases: [(String, String)] = [
            (try fixture.token(fixture.payload(nowMillis: now) { $0.certificateDigests = [[UInt8](repeating: 7, count: 32)]; $0.appLicensingVerdict = "UNLICENSED" }),
             "rejected certificateMismatch unlicensed"),
            (try fixture.token(fixture.payload(nowMillis: now) { $0.requestHash = "another request" }), "forged requestMismatch"),
            (try fixture.token(fixture.payload(nowMillis: now - 11 * 60_000)), "rejected staleVerdict"),
            (try fixture.token(fixture.payload(nowMillis: now) { $0.packageName = "com.other.app" }), "rejected packageNotRegistered"),
            (try fixture.token(fixture.payload(nowMillis: now) { $0.appRecognitionVerdict = "UNRECOGNIZED_VERSION" }), "rejected appVerdict:UNRECOGNIZED_VERSION"),
            (try fixture.token(fixture.payload(nowMillis: now) { $0.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"] }), "rejected virtualDevice"),
            (try fixture.token(fixture.payload(nowMillis: now) { $0.appsDetected = ["UNKNOWN_CAPTURING"]; $0.deviceActivityLevel = "LEVEL_4" }),
             "rejected capturingAppDetected highDeviceActivity"),
            (try fixture.token(fixture.payload(nowMillis: now), minter: try PlayIntegrityMinter.random()), "forged decryptionFailed"),
            (try PlayIntegrityMinter(decryptionKey: fixture.minter.decryptionKey, signingKey: try ECPrivateKey.generate())
                .token(fixture.payload(nowMillis: now).json), "forged signatureInvalid"),
            (try fixture.minter.token(payloadBytes: fixture.payload(nowMillis: now).json.serialized(), jwsHeader: #"{"alg":"none"}"#), "forged signatureInvalid"),
            ("not.a.token", "forged decryptionFailed"),
        ]
        for (token, expected) in cases {
            let response = try server.playIntegrity(apiKey: apiKey, token: token)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.verdict == expected)
        }
        #expect(try server.playIntegrity(apiKey: apiKey, token: cases[0].0).verdict == "rejected verdictReplayed certificateMismatch unlicensed")
    }

    @Test func nothingConfiguredIsUnavailable() throws {
        let server = try DeviceServer(Self.noLimits)
        let fixture = try PlayIntegrityFixture()
        let (id, apiKey) = try server.environment(kind: "production", appIds: [])
        try server.patch(id, fixture.registration())
        let response = try server.playIntegrity(apiKey: apiKey, token: try fixture.token(fixture.payload(nowMillis: PlayIntegrityFixture.nowMillis)))
        #expect(response.status == 200)
        #expect(response.verdict == "unavailable notConfigured")
        #expect(response.json?["decodedBy"]?.isNull == true)
        #expect(response.json?["observed"]?["packageName"]?.isNull == true)
    }

    @Test func malformedRequestsAreNamedByPointer() throws {
        let server = try DeviceServer(Self.noLimits)
        let (_, apiKey) = try server.environment(kind: "production", appIds: [])
        let bad = try server.post("/play-integrity", ["apiKey": .string(apiKey), "packageName": "not a package", "token": 5])
        #expect(bad.status == 400)
        #expect(bad.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        let pointers = bad.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } ?? []
        #expect(pointers == ["/requestHash", "/token", "/packageName"])
        let unknown = try server.post("/play-integrity", PlayIntegrityFixture.request(apiKey: "pk_live_nope", token: "a.b.c.d.e"))
        #expect(unknown.status == 401)
        let large = try server.post("/play-integrity", raw: Array(repeating: UInt8(ascii: " "), count: 64 * 1024 + 1))
        #expect(large.status == 413)
    }

    @Test func realVerificationRaisesTheChecklist() throws {
        let server = try DeviceServer(Self.noLimits)
        let fixture = try PlayIntegrityFixture()
        let (id, apiKey) = try server.environment(kind: "production", appIds: [])
        try server.patch(id, fixture.registration(playIntegrity: fixture.localKeys()))
        let now = PlayIntegrityFixture.nowMillis
        let playSigning = [UInt8](repeating: 0xAB, count: 32)
        let stranger = try PlayIntegrityMinter.random()
        for _ in 0..<22 {
            // Play's app-signing key, not registered.
            let unregistered = try fixture.token(fixture.payload(nowMillis: now) { $0.certificateDigests = [playSigning] })
            #expect(try server.playIntegrity(apiKey: apiKey, token: unregistered).verdict == "rejected certificateMismatch")
            // A genuine build installed from outside Play.
            let sideloaded = try fixture.token(fixture.payload(nowMillis: now) {
                $0.appRecognitionVerdict = "UNRECOGNIZED_VERSION"
                $0.appLicensingVerdict = "UNLICENSED"
            })
            #expect(try server.playIntegrity(apiKey: apiKey, token: sideloaded).verdict == "rejected appVerdict:UNRECOGNIZED_VERSION unlicensed")
            // Tokens encrypted for keys other than those set.
            let foreign = try fixture.token(fixture.payload(nowMillis: now), minter: stranger)
            #expect(try server.playIntegrity(apiKey: apiKey, token: foreign).verdict == "forged decryptionFailed")
        }
        try server.restart(after: SIGTERM)
        let certificate = try #require(try server.checklistItem(id, "android.certificateNotRegistered"))
        #expect(certificate["status"]?.string != "ok")
        #expect(certificate["evidence"]?["failing"]?.integer == 22)
        #expect(certificate["evidence"]?["observed"]?.array?.first?["value"]?.string == Hex.encode(playSigning, uppercase: true, separator: ":"))
        let notFromPlay = try #require(try server.checklistItem(id, "android.notFromPlay"))
        #expect(notFromPlay["status"]?.string != "ok")
        #expect(notFromPlay["evidence"]?["failing"]?.integer == 22)
        let keys = try #require(try server.checklistItem(id, "playIntegrity.keysNotTheApps"))
        #expect(keys["status"]?.string != "ok")
        #expect(keys["evidence"]?["failing"]?.integer == 22)
    }
}
