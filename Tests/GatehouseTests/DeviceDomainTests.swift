import DomainTesting
import Attestation
import Crypto
import Foundation
@testable import Gatehouse
import Simulator
import TestSupport
import Testing

/// The App Attest and assess services without HTTP, on a store: the device API's judgements as the domain makes them
/// (the HTTP suites drive the same through the controllers; these pin the domain's part alone).
@Suite("Device services in the domain", .serialized)
struct DeviceDomainTests {
    static let appID = "ABCDE12345.com.example.app"
    /// The synthetic CA (made once: it runs `openssl`).
    static let authority: Result<SyntheticAppAttest, any Error> = Result { try SyntheticAppAttest() }

    /// A store with a production environment registering ``appID``, and the services over it.
    struct Fixture {
        let engine: EngineStore
        let environment: Environment
        let publicKey: String
        let appAttest: AppAttestService
        let assess: AssessService

        init() throws {
            // The synthetic CA's certificates are valid from when openssl makes them (the CA on first use, each leaf when
            // a key is attested, seconds later on a loaded machine): the store's time is two minutes ahead of now, inside
            // every certificate's validity.
            let authority = try DeviceDomainTests.authority.get()
            let directory = try TemporaryDirectory("gatehouse-device-roots")
            try authority.rootPEM.write(toFile: directory.file("roots.pem"), atomically: true, encoding: .utf8)
            try #require(authority.receipts).rootPEM.write(toFile: directory.file("receipt-roots.pem"), atomically: true, encoding: .utf8)
            engine = try DomainEngine.sqlite.open(now: Int64(Date().timeIntervalSince1970) + 120) { configuration in
                configuration.appAttestRoots = directory.file("roots.pem")
                configuration.appAttestReceiptRoots = directory.file("receipt-roots.pem")
            }
            let (created, keys) = try engine.environment()
            var patch = EnvironmentPatch()
            patch.appleAppIDs = .set([DeviceDomainTests.appID])
            environment = try engine.domain.environments.patch(created.id, with: patch, actor: .system)
            publicKey = try #require(keys.compactMap(\.key.publicValue).first)
            appAttest = engine.domain.appAttest
            try engine.domain.receiptKeys.prepare()
            assess = engine.domain.assess
        }

        /// A key attested for ``appID`` and registered through the service.
        func registeredKey() throws -> SyntheticKey {
            let challenge = try appAttest.issueChallenge(for: environment).challenge
            let key = try DeviceDomainTests.authority.get().attest(appId: DeviceDomainTests.appID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
            let outcome = try appAttest.register(in: environment, keyID: key.keyId, challenge: challenge, attestation: key.attestation)
            #expect(outcome.verdict.isVerified, "\(outcome.verdict.reasons)")
            #expect(try appAttest.register(in: environment, keyID: key.keyId, challenge: challenge, attestation: key.attestation).verdict.reasons
                    == ["challengeInvalid"], "the challenge was consumed")
            return key
        }

        /// A signed iOS request at the store's time, as the phone builds it, with `proof` made for its canonical text.
        func request(nonce: String? = nil, signature: [UInt8]? = nil,
                     proof: (SignedEnvelope) throws -> AssessRequest.Proof? = { _ in nil }) throws -> AssessRequest {
            let envelope = try SignedEnvelope(apiKey: publicKey, platform: "ios", signed: SignedEnvelope.signedText(appID: "com.example.app"),
                                              timestamp: engine.clock.now * 1000, nonce: nonce)
            let signed = Base64.decode(envelope.signature) ?? []
            return AssessRequest(platform: .ios, timestamp: envelope.timestamp, nonce: envelope.nonce, signature: signature ?? signed,
                                 signedText: envelope.signed, appID: "com.example.app", signatureDigest: nil, deviceID: nil,
                                 receiptKey: nil, proof: try proof(envelope))
        }
    }

    @Test func assertionsAreJudgedAgainstTheStoredCounter() throws {
        let f = try Fixture()
        let key = try f.registeredKey()
        let clientData = Array("GET /orders".utf8)
        let judged = try [1, 3, 2, 3, 40, 5].map { counter in
            let assertion = try key.assertion(counter: UInt32(counter), clientData: clientData)
            return try f.appAttest.assert(in: f.environment, keyID: key.keyId, clientData: clientData, assertion: assertion).verdict.reasons.first ?? "verified"
        }
        #expect(judged == ["verified", "verified", "verified", "counterReused", "verified", "counterRegression"])
    }

    @Test func aSignedRequestIsJudgedOnceAndItsAssertionCounts() throws {
        let f = try Fixture()
        let key = try f.registeredKey()
        let plain = try f.assess.assess(try f.request(), apiKey: f.publicKey, in: f.environment)
        #expect(plain.tampering.isEmpty && plain.attestation == nil && plain.attackMode == .off && plain.action == .allow)

        let nonce = Base64.encode(try SecureRandom.bytes(16), alphabet: .urlSafe, padded: false)
        let attested = try f.request(nonce: nonce) { envelope in
            .appAttest(keyID: key.keyId, assertion: try key.assertion(counter: 1, clientData: envelope.clientData))
        }
        let first = try f.assess.assess(attested, apiKey: f.publicKey, in: f.environment)
        #expect(first.attestation?.verdict.isVerified == true, "\(String(describing: first.attestation))")
        #expect(first.tampering.isEmpty)
        let replay = try f.assess.assess(attested, apiKey: f.publicKey, in: f.environment)
        #expect(replay.tampering == [Tampering.replayed])
        #expect(replay.attestation?.verdict.reasons == ["requestReplayed"], "the replay commits nothing: not even the counter")

        let forged = try f.assess.assess(try f.request(signature: [UInt8](repeating: 0, count: 32)), apiKey: f.publicKey, in: f.environment)
        #expect(forged.tampering == [Tampering.signatureInvalid])
    }

    /// Only a signed request inside the window spends its nonce: a forged signature or a timestamp six minutes ahead
    /// (the future side of the ±5-minute window) leaves the nonce to the genuine request that comes with it.
    @Test func onlyASignedFreshRequestSpendsItsNonce() throws {
        let f = try Fixture()
        let nonce = Base64.encode(try SecureRandom.bytes(16), alphabet: .urlSafe, padded: false)
        let forged = try f.assess.assess(try f.request(nonce: nonce, signature: [UInt8](repeating: 0, count: 32)), apiKey: f.publicKey, in: f.environment)
        #expect(forged.tampering == [Tampering.signatureInvalid])
        // Made six minutes ahead of the server's clock: judged stale, spends nothing.
        let ahead = try f.request(nonce: nonce)
        f.engine.clock.advance(by: -360)
        let early = try f.assess.assess(ahead, apiKey: f.publicKey, in: f.environment)
        #expect(early.tampering.isEmpty, "\(early.tampering)")
        f.engine.clock.advance(by: 360)
        let genuine = try f.assess.assess(ahead, apiKey: f.publicKey, in: f.environment)
        #expect(genuine.tampering.isEmpty, "the nonce was spent by a request that was not signed or not fresh: \(genuine.tampering)")
        #expect(try f.assess.assess(ahead, apiKey: f.publicKey, in: f.environment).tampering == [Tampering.replayed])
    }

    /// Every registration attempt spends its challenge, a failed one too: a forged attestation sent with a fresh
    /// challenge leaves nothing for a second try.
    @Test func aFailedRegistrationSpendsItsChallenge() throws {
        let f = try Fixture()
        let challenge = try f.appAttest.issueChallenge(for: f.environment).challenge
        let key = try DeviceDomainTests.authority.get().attest(appId: DeviceDomainTests.appID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        let junk = try f.appAttest.register(in: f.environment, keyID: key.keyId, challenge: challenge, attestation: [0xA0])
        #expect(junk.verdict.status == .forged, "\(junk.verdict)")
        let retry = try f.appAttest.register(in: f.environment, keyID: key.keyId, challenge: challenge, attestation: key.attestation)
        #expect(retry.verdict.reasons == ["challengeInvalid"], "a failed attempt left its challenge usable: \(retry.verdict)")
    }

    /// Invalidation is declared by the table functions: a change of an environment's own fields (a PATCH, or the row
    /// lock taken before one) keeps the attested keys cached (of that environment and every other), and deleting an
    /// environment, whose keys go by cascade, forgets them.
    @Test func anEnvironmentPatchKeepsAttestedKeysCachedAndADeletionForgetsThem() throws {
        let fixture = try Fixture()
        let key = try fixture.registeredKey()
        let store = fixture.engine.store
        let clientData = Array("GET /orders".utf8)
        let assertion = try key.assertion(counter: 1, clientData: clientData)
        #expect(try fixture.appAttest.assert(in: fixture.environment, keyID: key.keyId, clientData: clientData, assertion: assertion).verdict.isVerified)
        let cached = fixture.appAttest.attestedKeys
        #expect(cached.lookup(key.keyId).entry != nil, "a key that asserted is cached")
        // The public key and a debug token of this environment, read once into their services' caches.
        let keys = fixture.appAttest.keys
        _ = try keys.authenticatePublic(fixture.publicKey)
        let debugTokens = fixture.assess.debugTokens
        let (token, value) = try debugTokens.create(environmentID: fixture.environment.id, name: "CI", expiresAt: nil, actor: .system)
        #expect(try debugTokens.live(value, environmentID: fixture.environment.id, now: store.clock())?.id == token.id)
        /// Whether each cache still answers without reading the database (a miss calls the read, which finds nothing).
        func stillCached() -> (publicKey: Bool, debugToken: Bool, attestedKey: Bool) {
            (keys.publicKeys.value(fixture.publicKey) { nil } != nil,
             debugTokens.byHash.value(RandomToken.hash(value)) { nil } != nil,
             cached.lookup(key.keyId).entry != nil)
        }
        let environments = fixture.appAttest.environments
        let (other, _) = try environments.create(name: "Other", kind: .development, actor: .system)  // writes its keys
        _ = try keys.authenticatePublic(fixture.publicKey)
        #expect(stillCached() == (true, true, true))
        var patch = EnvironmentPatch()
        patch.attackMode = true
        _ = try environments.patch(other.id, with: patch, actor: .system)
        #expect(stillCached() == (true, true, true), "another environment's PATCH emptied a cache of this one")
        _ = try environments.patch(fixture.environment.id, with: patch, actor: .system)
        #expect(cached.lookup(key.keyId).entry != nil, "a PATCH emptied the attested key cache")
        try environments.delete(other.id, actor: .system)
        #expect(cached.lookup(key.keyId).entry == nil, "deleting an environment leaves attested keys cached")
    }
}
