import AttestationTesting
import Crypto
import Foundation
import JSON
import Testing

/// `POST /api/v4/assess` for Android over a real socket: the Play Integrity token bound to the canonical string's
/// hash, the reported signing certificate, attack mode, and bad envelopes answered 400 with pointers.
@Suite("Assess: signed requests (Android) and bad envelopes", .serialized, .needsSyntheticCA)
struct AssessAndroidTests {
    /// A server with one environment registering the fixture's app and its local keys; its id and public key.
    static func setUp(_ server: DeviceServer, _ fixture: PlayIntegrityFixture, attackMode: Bool = false) throws -> (String, String) {
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [])
        try server.patch(environment, fixture.registration(playIntegrity: fixture.localKeys()))
        if attackMode { try server.patch(environment, ["attackMode": true]) }
        return (environment, publicKey)
    }

    /// An Android envelope reporting `digest`, and a token for it (bound to its request hash unless `bind` is false).
    static func request(_ publicKey: String, _ fixture: PlayIntegrityFixture, digest: [UInt8]? = nil, bind: Bool = true) throws -> JSON {
        let envelope = try SignedEnvelope(apiKey: publicKey, platform: "android",
                                          signed: SignedEnvelope.signedText(appID: PlayIntegrityFixture.packageName,
                                                                            signatureDigest: Hex.encode(digest ?? fixture.digest), deviceID: "pixel-1"),
                                          timestamp: AssessFixture.nowMillis)
        let payload = fixture.payload(nowMillis: AssessFixture.nowMillis) { $0.requestHash = bind ? envelope.requestHash : "another request" }
        return envelope.json(attestation: SignedEnvelope.playIntegrity(try fixture.token(payload)))
    }

    @Test func aGoodRequestIsVerifiedAndAnUnregisteredCertificateIsTampering() throws {
        let server = try DeviceServer()
        let fixture = try PlayIntegrityFixture()
        let (_, publicKey) = try Self.setUp(server, fixture)
        let good = try server.assess(try Self.request(publicKey, fixture))
        #expect(good.assessed == "verified")
        #expect(good.json?["attestation"]?["provider"]?.string == "play-integrity")
        #expect(good.tampering == [])
        #expect(good.json?["receiptBound"]?.bool == false)

        let unbound = try server.assess(try Self.request(publicKey, fixture, bind: false))
        #expect(unbound.assessed == "forged requestMismatch")

        let stranger = try server.assess(try Self.request(publicKey, fixture, digest: try SecureRandom.bytes(32)))
        #expect(stranger.tampering == ["signatureDigestMismatch"])
        #expect(stranger.assessed == "verified", "the token's own certificate is registered; the report beside it is what lies")
    }

    /// A replayed nonce is refused before its token counts: the token it carried stays unspent.
    @Test func aReplayedRequestLeavesItsTokenUnspent() throws {
        let server = try DeviceServer()
        let fixture = try PlayIntegrityFixture()
        let (_, publicKey) = try Self.setUp(server, fixture)
        let envelope = try SignedEnvelope(apiKey: publicKey, platform: "android",
                                          signed: SignedEnvelope.signedText(appID: PlayIntegrityFixture.packageName,
                                                                            signatureDigest: Hex.encode(fixture.digest), deviceID: "pixel-1"),
                                          timestamp: AssessFixture.nowMillis)
        func token() throws -> String {
            try fixture.token(fixture.payload(nowMillis: AssessFixture.nowMillis) { $0.requestHash = envelope.requestHash })
        }
        #expect(try server.assess(envelope.json(attestation: SignedEnvelope.playIntegrity(try token()))).assessed == "verified")
        let second = try token()
        let replayed = try server.assess(envelope.json(attestation: SignedEnvelope.playIntegrity(second)))
        #expect(replayed.assessed == "rejected requestReplayed")
        #expect(replayed.tampering == ["replayed"])
        #expect(try server.playIntegrity(apiKey: publicKey, token: second, requestHash: envelope.requestHash).verdict == "verified")
    }

    @Test func attackModeOnAndroidWithAndWithoutProof() throws {
        let server = try DeviceServer()
        let fixture = try PlayIntegrityFixture()
        let (_, publicKey) = try Self.setUp(server, fixture, attackMode: true)
        #expect(try server.assess(try Self.request(publicKey, fixture)).json?["attackMode"]?.string == "proven")
        var bare = try Self.request(publicKey, fixture)
        bare = .object((bare.members ?? []).filter { $0.key != "attestation" })
        let unproven = try server.assess(bare)
        #expect(unproven.json?["attackMode"]?.string == "unproven")
        #expect(unproven.assessed == "none")
        // iOS has nothing set up here, and no app is registered on it: a request that claims iOS is challenged.
        #expect(try server.assess(try AssessFixture.ios(publicKey).json()).json?["attackMode"]?.string == "unproven")
    }

    @Test(arguments: [
        (#"{}"#, ["/apiKey", "/platform", "/request", "/signed"]),
        (#"{"apiKey": 5, "platform": "windows", "request": [], "signed": {"app": {}}}"#, ["/apiKey", "/platform", "/request", "/signed"]),
        (#"{"apiKey": "pk_x", "platform": "ios", "request": {"timestamp": "now", "nonce": "c2hvcnQ", "signature": "!"}, "signed": "[1]"}"#,
         ["/request/timestamp", "/request/nonce", "/request/signature", "/signed"]),
        (#"{"apiKey": "pk_x", "platform": "ios", "request": {"timestamp": 1, "nonce": "AAAAAAAAAAAAAAAAAAAAAA", "signature": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, "signed": "{\"app\": {\"id\": 7}, \"receiptKey\": \"AAAA\"}", "attestation": {"provider": "safetynet"}}"#,
         ["/signed/app/id", "/signed/receiptKey", "/attestation/provider"]),
        (#"{"apiKey": "pk_x", "platform": "ios", "request": {"timestamp": 1.5, "nonce": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "signature": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, "signed": "{\"app\": {\"id\": \"a\"}}"}"#,
         ["/request/timestamp", "/request/nonce"]),
        // A P-256 SubjectPublicKeyInfo whose point is not on the curve.
        (#"{"apiKey": "pk_x", "platform": "ios", "request": {"timestamp": 1, "nonce": "AAAAAAAAAAAAAAAAAAAAAA", "signature": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, "signed": "{\"app\": {\"id\": \"a\"}, \"receiptKey\": \"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ==\"}"}"#,
         ["/signed/receiptKey"]),
    ])
    func badEnvelopesAre400WithPointers(body: String, pointers: [String]) throws {
        let server = try DeviceServer()
        let response = try server.assess(raw: Array(body.utf8))
        #expect(response.status == 400, "\(response.text)")
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response.pointers == pointers, "\(response.text)")
    }

    @Test func aSignedOf64KiBIsNamedAndNotJSONIsRefused() throws {
        let server = try DeviceServer()
        let huge = #"{"app": {"id": "x"}, "pad": ""# + String(repeating: "a", count: 64 * 1024) + #""}"#
        let body = JSON.object([JSON.Member("apiKey", "pk_x"), JSON.Member("platform", "ios"), JSON.Member("signed", .string(huge))])
        let response = try server.assess(body)
        #expect(response.status == 400, "\(response.text)")
        #expect(response.pointers == ["/signed"])
        let notJSON = try server.assess(raw: Array("{\"apiKey\": ".utf8))
        #expect(notJSON.status == 400)
        let unknown = try server.assess(try AssessFixture.ios("pk_live_unknown").json())
        #expect(unknown.status == 401)
    }
}
