import AttestationTesting
import Crypto
import Foundation
import GatehouseReceipts
import JSON
import Simulator
import Testing

/// `POST /api/v4/assess` for iOS over a real socket: the signed request judged whole with an App Attest assertion
/// over its canonical string, the checks of docs/device-api.md "Assessment", attack mode, and the receipt checked offline.
@Suite("Assess: signed requests (iOS)", .serialized, .needsSyntheticCA)
struct AssessAPITests {
    @Test func aGoodRequestIsProvenAndItsReceiptChecksOfflineAgainstTheServedKeys() throws {
        let server = try DeviceServer()
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [AssessFixture.appId])
        let key = try server.registeredKey(publicKey: publicKey)
        let phone = try ECPrivateKey.generate()
        let envelope = try AssessFixture.ios(publicKey, receiptKey: phone.publicKey)
        let response = try server.assess(try AssessFixture.withAssertion(envelope, key: key, counter: 1))
        #expect(response.status == 200, "\(response.text)")
        #expect(response.assessed == "verified")
        #expect(response.json?["attestation"]?["provider"]?.string == "app-attest")
        #expect(response.json?["tampering"]?["result"]?.bool == false)
        #expect(response.json?["tampering"]?["evidenceSigned"]?.bool == true)
        #expect(response.json?["attackMode"]?.string == "off")
        #expect(response.json?["receiptBound"]?.bool == true)
        let requestID = try #require(response.json?["requestId"]?.string)

        // Offline, as an app's backend: the JWKS served, the receipt, a proof by the phone's key.
        let token = try #require(response.json?["sessionToken"]?.string)
        let verifier = ReceiptVerifier(keys: try server.receiptKeys(), environment: environment)
        let now = AssessFixture.nowMillis
        let proof = try RequestProof.sign(method: "GET", pathAndQuery: "/api/orders", timestamp: now, key: phone).header
        let checked = verifier.verify(token, method: "GET", pathAndQuery: "/api/orders", proof: proof, nowMilliseconds: now)
        #expect(checked.valid, "\(checked.reasons)")
        let claims = try #require(checked.claims)
        #expect(claims.expiresAt - claims.issuedAt == 600)
        #expect(claims.subject == requestID)
        #expect(claims.action == .allow)
        #expect(claims.attestation == ReceiptAttestation(provider: "app-attest", status: "verified"))
        #expect(claims.confirmationKey?.publicKey.x962 == phone.publicKey.x962)
        // Bound: without a proof it is not valid; another environment's receipt is not this one's.
        #expect(verifier.verify(token, method: "GET", pathAndQuery: "/api/orders", proof: nil, nowMilliseconds: now).reasons == [.sessionProof])
        #expect(!ReceiptVerifier(keys: try server.receiptKeys(), environment: "env_other").verify(
            token, method: "GET", pathAndQuery: "/api/orders", proof: proof, nowMilliseconds: now).valid)
    }

    @Test func wrongSignatureStaleTimestampAndOneSpaceAreCaught() throws {
        let server = try DeviceServer()
        let (_, publicKey) = try server.environment(kind: "production", appIds: [AssessFixture.appId])
        let key = try server.registeredKey(publicKey: publicKey)

        // A wrong HMAC: tampering; the assertion over the canonical string still verifies.
        let envelope = try AssessFixture.ios(publicKey)
        let wrong = envelope.json(attestation: SignedEnvelope.appAttest(keyID: key.keyId, assertion: try key.assertion(counter: 1, clientData: envelope.clientData)),
                                  signature: Base64.encode([UInt8](repeating: 7, count: 32), alphabet: .urlSafe, padded: false))
        let signed = try server.assess(wrong)
        #expect(signed.tampering == ["signatureInvalid"])
        #expect(signed.json?["tampering"]?["result"]?.bool == true)
        #expect(signed.assessed == "verified")

        // Six minutes old: the attestation is not verified.
        let stale = try AssessFixture.ios(publicKey, timestamp: AssessFixture.nowMillis - 360_000)
        let staleResponse = try server.assess(try AssessFixture.withAssertion(stale, key: key, counter: 2))
        #expect(staleResponse.assessed == "rejected requestStale")
        #expect(staleResponse.tampering == [])

        // `signed` altered by one space after signing: the HMAC and the assertion both fail.
        let original = try AssessFixture.ios(publicKey)
        var body = try AssessFixture.withAssertion(original, key: key, counter: 3)
        var altered = original
        altered.signed = original.signed.replacingOccurrences(of: ":", with: ": ", options: [], range: original.signed.range(of: ":"))
        #expect(altered.signed.utf8.count == original.signed.utf8.count + 1)
        body = .object((body.members ?? []).map { $0.key == "signed" ? JSON.Member("signed", .string(altered.signed)) : $0 })
        let spaced = try server.assess(body)
        #expect(spaced.tampering == ["signatureInvalid"])
        #expect(spaced.assessed == "forged assertionInvalid")
    }

    @Test func aReplayedNonceIsSpentAcrossEnvironmentsOfTheSameApp() throws {
        let server = try DeviceServer()
        let (_, first) = try server.environment(kind: "production", appIds: [AssessFixture.appId])
        let (_, second) = try server.environment(kind: "development", appIds: [AssessFixture.appId])
        let key = try server.registeredKey(publicKey: first)
        let envelope = try AssessFixture.ios(first)
        let body = try AssessFixture.withAssertion(envelope, key: key, counter: 1)
        #expect(try server.assess(body).assessed == "verified")
        let again = try server.assess(body)
        #expect(again.tampering == ["replayed"])
        #expect(again.assessed == "rejected requestReplayed")
        // A replay changes nothing else: the counter of the assertion it carried stays unspent.
        let replayWithNewCounter = try server.assess(try AssessFixture.withAssertion(envelope, key: key, counter: 2))
        #expect(replayWithNewCounter.assessed == "rejected requestReplayed")
        #expect(try server.assess(try AssessFixture.withAssertion(try AssessFixture.ios(first), key: key, counter: 2)).assessed == "verified")

        // The same nonce in another environment that registered the app, signed with that environment's key.
        var elsewhere = envelope
        elsewhere.apiKey = second
        let replayed = try server.assess(elsewhere.json())
        #expect(replayed.status == 200)
        #expect(replayed.tampering == ["replayed"])
        // A fresh nonce there is fine.
        #expect(try server.assess(try AssessFixture.ios(second).json()).tampering == [])
    }

    @Test func anAssertionForAnotherAppAndAKeySpeakingForThreeDevicesAreRejected() throws {
        let server = try DeviceServer()
        let other = "ABCDE12345.com.example.other"
        let (_, publicKey) = try server.environment(kind: "production", appIds: [AssessFixture.appId, other])
        let otherKey = try server.registeredKey(appId: other, publicKey: publicKey)
        let foreign = try server.assess(try AssessFixture.withAssertion(try AssessFixture.ios(publicKey), key: otherKey, counter: 1))
        #expect(foreign.assessed == "rejected packageMismatch")

        let key = try server.registeredKey(publicKey: publicKey)
        var counter: UInt32 = 0
        func send(_ device: String) throws -> String {
            counter += 1
            return try server.assess(try AssessFixture.withAssertion(try AssessFixture.ios(publicKey, device: device), key: key, counter: counter)).assessed
        }
        #expect(try send("device-a") == "verified")
        #expect(try send("device-b") == "verified")
        #expect(try send("device-a") == "verified")
        #expect(try send("device-c") == "rejected oneKeyManyDevices")
        // For the rest of the day, its own device's requests included.
        #expect(try send("device-a") == "rejected oneKeyManyDevices")
    }

    @Test func attackModeChallengesWhatCouldHaveProvenItselfAndWhatClaimsThePlatformNothingChecks() throws {
        let server = try DeviceServer()
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [AssessFixture.appId])
        try server.patch(environment, ["attackMode": true])
        let key = try server.registeredKey(publicKey: publicKey)
        let verifier = ReceiptVerifier(keys: try server.receiptKeys(), environment: environment)
        func action(_ response: PlainHTTP.Response) -> ReceiptAction? {
            verifier.verify(response.json?["sessionToken"]?.string ?? "", method: "GET", pathAndQuery: "/", proof: nil,
                            nowMilliseconds: AssessFixture.nowMillis).claims?.action
        }

        let proven = try server.assess(try AssessFixture.withAssertion(try AssessFixture.ios(publicKey), key: key, counter: 1))
        #expect(proven.json?["attackMode"]?.string == "proven")
        #expect(proven.json?["receiptBound"]?.bool == false)
        #expect(action(proven) == .allow)

        let bare = try server.assess(try AssessFixture.ios(publicKey).json())
        #expect(bare.assessed == "none")
        #expect(bare.json?["attackMode"]?.string == "unproven")
        #expect(action(bare) == .challenge)

        let failed = try server.assess(try AssessFixture.withAssertion(try AssessFixture.ios(publicKey), key: key, counter: 1))
        #expect(failed.assessed == "forged counterReused")
        #expect(failed.json?["attackMode"]?.string == "unproven")

        // Android has nothing set up in this environment, and no Android app is registered: a request that claims
        // Android is the client's word, so it is challenged too (AttackModePlatformTests has the rest of the rule).
        let android = try SignedEnvelope(apiKey: publicKey, platform: "android",
                                         signed: SignedEnvelope.signedText(appID: "com.example.app", signatureDigest: String(repeating: "AB", count: 32)),
                                         timestamp: AssessFixture.nowMillis)
        let claimed = try server.assess(android.json())
        #expect(claimed.json?["attackMode"]?.string == "unproven")
        #expect(claimed.tampering == [])
        #expect(action(claimed) == .challenge)
    }
}
