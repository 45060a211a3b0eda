@testable import Gatehouse
import Crypto
import Foundation
import GatehouseReceipts
import GatehouseTesting
import JSON
import Simulator
import Storage
import Testing

/// The receipt endpoints over a real loopback socket: the JWKS, receipts checked offline against it, the backends'
/// verify endpoint, and key rotation on the test clock.
@Suite("Receipts API")
struct ReceiptsAPITests {
    let fixture: ReceiptsFixture

    init() throws {
        fixture = try ReceiptsFixture()
    }

    @Test func jwksIsServedWithCachingHeaders() throws {
        let response = try fixture.client.send("GET", "/api/v4/receipts/keys")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/jwk-set+json")
        #expect(response.header("Cache-Control") == "public, max-age=300")
        let etag = try #require(response.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count > 10)
        let keys = try JWKS(bytes: response.body)
        #expect(keys.keys.count == 1)
        let kid = try #require(keys.keys.first?.kid)
        #expect(kid == keys.keys.first?.thumbprint)
        let again = try fixture.client.send("GET", "/api/v4/receipts/keys", headers: [("If-None-Match", etag)])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.header("ETag") == etag)
        #expect(try fixture.client.send("GET", "/api/v4/receipts/keys", headers: [("If-None-Match", "\"other\"")]).status == 200)
    }

    @Test func receiptFromTheIssuerChecksOfflineAgainstTheServedJWKS() throws {
        let token = try fixture.issue()
        let keys = try fixture.keys()
        let verifier = ReceiptVerifier(keys: keys, environment: fixture.environmentID)
        let result = verifier.verify(token, method: "GET", pathAndQuery: "/api/orders?page=2", proof: try fixture.proof(),
                                     nowMilliseconds: fixture.nowMilliseconds)
        #expect(result.valid, "\(result.reasons)")
        let claims = try #require(result.claims)
        #expect(claims.expiresAt - claims.issuedAt == 600)
        #expect(claims.issuedAt == fixture.app.clock.now)
        #expect(claims.confirmationKey == PublicJWK(publicKey: fixture.phone.publicKey))
        #expect(claims.environment == fixture.environmentID)
        #expect(claims.attestation == ReceiptAttestation(provider: "play-integrity", status: "verified"))
        let header = try JSONParser.parse(Base64.decode(String(token.split(separator: ".")[0])) ?? [])
        #expect(header == ["alg": "ES256", "kid": .string(keys.keys.first?.kid ?? "?"), "typ": "gatehouse-receipt+jwt"])
        #expect(!verifier.verify(token, method: "GET", pathAndQuery: "/api/orders?page=2", proof: nil, nowMilliseconds: fixture.nowMilliseconds).valid)
    }

    @Test func verifyWithAFreshProof() throws {
        let answer = try fixture.verify(try fixture.issue(), proof: try fixture.proof())
        #expect(answer["valid"] == true, "\(answer.text)")
        #expect(answer.reasons == [])
        #expect(answer["environment"]?.string == fixture.environmentID)
        #expect(answer["action"] == "allow")
        #expect(answer["attestation"] == ["provider": "play-integrity", "status": "verified"])
        #expect(answer["bound"] == true)
        #expect(answer["expiresAt"]?.string == Timestamp.format(fixture.app.clock.now + 600))
    }

    @Test func boundReceiptWithoutAGoodProofIsSessionProof() throws {
        let token = try fixture.issue()
        let none = try fixture.verify(token, proof: nil)
        #expect(none["valid"] == false)
        #expect(none.reasons == ["session:proof"])
        #expect(none["bound"] == true)
        #expect(try fixture.verify(token, proof: try fixture.proof(age: 121_000)).reasons == ["session:proof"])
        #expect(try fixture.verify(token, proof: try fixture.proof(age: 119_000))["valid"] == true)
        #expect(try fixture.verify(token, proof: try fixture.proof("GET", "/api/orders?page=3")).reasons == ["session:proof"])
        #expect(try fixture.verify(token, proof: try fixture.proof("DELETE", "/api/orders?page=2")).reasons == ["session:proof"])
        #expect(try fixture.verify(token, proof: "t=1,s=AAAA").reasons == ["session:proof"])
    }

    @Test func unboundReceiptNeedsNoProof() throws {
        let answer = try fixture.verify(try fixture.issue(bound: false), proof: nil)
        #expect(answer["valid"] == true, "\(answer.text)")
        #expect(answer["bound"] == false)
    }

    @Test func anotherEnvironmentsSecretKeyMakesItWrongEnvironment() throws {
        let answer = try fixture.verify(try fixture.issue(), proof: try fixture.proof(), secret: fixture.otherSecret)
        #expect(answer.reasons == ["wrongEnvironment"])
        #expect(answer["environment"]?.string == fixture.environmentID)
    }

    @Test func expiredAfterTenMinutes() throws {
        let token = try fixture.issue()
        fixture.app.clock.advance(by: 600)
        #expect(try fixture.verify(token, proof: try fixture.proof()).reasons == ["expired"])
    }

    @Test func tamperedTokenAndGarbage() throws {
        let token = try fixture.issue(bound: false)
        var parts = token.split(separator: ".").map(String.init)
        var claims = try JSONParser.parse(Base64.decode(parts[1]) ?? [])
        if case .object(var members) = claims {
            members.removeAll { $0.key == "env" }
            members.append(.init("env", .string(fixture.otherEnvironmentID)))
            claims = .object(members)
        }
        parts[1] = Base64.encode(claims.serialized(), alphabet: .urlSafe, padded: false)
        let tampered = try fixture.verify(parts.joined(separator: "."), proof: nil, secret: fixture.otherSecret)
        #expect(tampered.reasons == ["signatureInvalid"])
        #expect(tampered["environment"] == .null)
        #expect(tampered["expiresAt"] == .null)
        for garbage in ["", "garbage", "a.b.c", String(repeating: "x", count: 20_000)] {
            let answer = try fixture.verify(garbage, proof: nil)
            #expect(answer.reasons == ["malformed"], "\(garbage.prefix(20))")
            #expect(answer["valid"] == false)
        }
    }

    @Test func badRequestsAreRefusedByPointer() throws {
        let token = try fixture.issue()
        let bad = try fixture.verify(["token": 5, "method": "G E T", "pathAndQuery": "orders", "proof": 7])
        #expect(bad.status == 400)
        let pointers = bad.json?["errors"]?.array?.compactMap { $0["pointer"]?.string }
        #expect(pointers == ["/token", "/method", "/pathAndQuery", "/proof"])
        #expect(try fixture.verify(["token", "method"]).status == 400)
        let noAuth = try fixture.client.send("POST", "/api/v4/receipts/verify", headers: [("Content-Type", "application/json")],
                                             body: (["token": .string(token)] as JSON).serialized())
        #expect(noAuth.status == 401)
        let publicKey = try fixture.client.send("POST", "/api/v4/receipts/verify",
                                                headers: [("Authorization", "Bearer " + (try fixture.app.token())), ("Content-Type", "application/json")],
                                                body: (["token": .string(token)] as JSON).serialized())
        #expect(publicKey.status == 401)  // a management token is not a secret key
        let text = try fixture.client.send("POST", "/api/v4/receipts/verify",
                                           headers: [("Authorization", "Bearer " + fixture.secret), ("Content-Type", "text/plain")], body: Array("x".utf8))
        #expect(text.status == 415)
        let big = try fixture.verify(["token": .string(String(repeating: "a", count: 70_000)), "method": "GET", "pathAndQuery": "/"])
        #expect(big.status == 413)
    }

    @Test func rotationKeepsTheOldKeyPublishedForAnHour() throws {
        let before = try fixture.issue()
        let oldKeys = try fixture.keys()
        let rotated = try fixture.app.application.domain.receiptKeys.rotate()
        #expect(rotated.retired == oldKeys.keys.first?.kid)
        let during = try fixture.keys()
        #expect(during.keys.compactMap(\.kid) == [rotated.current, rotated.retired].compactMap { $0 })

        // A receipt signed before the rotation still verifies; one signed after uses the new key.
        fixture.app.clock.advance(by: 300)
        #expect(try fixture.verify(before, proof: try fixture.proof())["valid"] == true)
        let after = try fixture.issue()
        #expect(try fixture.verify(after, proof: try fixture.proof())["valid"] == true)
        let afterKid = try JSONParser.parse(Base64.decode(String(after.split(separator: ".")[0])) ?? [])["kid"]?.string
        #expect(afterKid == rotated.current)

        // A key the server never published is an unknown kid.
        let stranger = try ECPrivateKey.generate()
        let foreign = try ReceiptSigner(privateKey: stranger, kid: PublicJWK(publicKey: stranger.publicKey).thumbprint).sign(
            ReceiptClaims(environment: fixture.environmentID, subject: "req_x", issuedAt: fixture.app.clock.now, platform: "ios", action: .allow,
                          attestation: nil, confirmationKey: nil))
        #expect(try fixture.verify(foreign, proof: nil).reasons == ["signatureInvalid"])

        // An hour after the rotation the old key is gone from the JWKS, and what it signed no longer verifies.
        fixture.app.clock.advance(by: 3300)
        #expect(try fixture.keys().keys.compactMap(\.kid) == [rotated.current])
        let offline = ReceiptVerifier(keys: try fixture.keys(), environment: fixture.environmentID)
        #expect(offline.verify(before, method: "GET", pathAndQuery: "/", proof: nil, nowMilliseconds: fixture.nowMilliseconds).reasons == [.signatureInvalid])
    }

    /// A leaked key is unpublished at once (`rotate-key --revoke-now`): what it signed no longer verifies, on the
    /// endpoint nor offline against the served JWKS; the new key signs.
    @Test func revokingNowUnpublishesTheOldKeysAtOnce() throws {
        let leaked = try fixture.issue()
        _ = try fixture.app.application.domain.receiptKeys.rotate()
        let older = try fixture.issue()
        let rotated = try fixture.app.application.domain.receiptKeys.rotate(revokeNow: true)
        #expect(try fixture.keys().keys.compactMap(\.kid) == [rotated.current])
        for token in [leaked, older] {
            #expect(try fixture.verify(token, proof: try fixture.proof()).reasons == ["signatureInvalid"])
            let offline = ReceiptVerifier(keys: try fixture.keys(), environment: fixture.environmentID)
            #expect(offline.verify(token, method: "GET", pathAndQuery: "/", proof: nil, nowMilliseconds: fixture.nowMilliseconds).reasons == [.signatureInvalid])
        }
        #expect(try fixture.verify(try fixture.issue(), proof: try fixture.proof())["valid"] == true)
    }

    @Test func keyIsMadeOnceAndSealed() throws {
        let kid = try fixture.keys().keys.first?.kid
        let rows = try fixture.app.application.domain.store.database.read { db in
            try db.query("SELECT kid, sealed_private_key FROM receipt_keys")
        }
        #expect(rows.count == 1)
        let sealed = try #require(try rows.first?.blob("sealed_private_key"))
        #expect(!sealed.isEmpty)
        #expect((try? ECPrivateKey(pkcs8DER: sealed)) == nil)  // not the key in the clear
        #expect(try fixture.app.application.domain.receiptKeys.prepare() == kid)
    }
}

/// The backend's policy on `POST /api/v4/receipts/verify` (`require`), over a real socket.
@Suite("Receipts API: the backend's policy")
struct ReceiptsPolicyAPITests {
    let fixture: ReceiptsFixture

    init() throws {
        fixture = try ReceiptsFixture()
    }

    func verify(_ token: String, proof: String?, require: JSON) throws -> PlainHTTP.Response {
        try fixture.verify(["token": .string(token), "method": "GET", "pathAndQuery": "/api/orders?page=2", "proof": .optional(proof),
                            "require": require])
    }

    @Test func anUnboundUnattestedReceiptFailsTheStrictPolicy() throws {
        let bare = try fixture.issue(bound: false, attestation: nil)
        #expect(try fixture.verify(bare, proof: nil)["valid"] == true)
        let strict = try verify(bare, proof: nil, require: ["bound": true, "attestation": "verified"])
        #expect(strict.status == 200, "\(strict.text)")
        #expect(strict.json?["valid"] == false)
        #expect(strict.json?.reasons == ["unbound", "unattested"])
        #expect(try verify(bare, proof: nil, require: ["bound": true]).json?.reasons == ["unbound"])
        #expect(try verify(bare, proof: nil, require: ["attestation": "verified"]).json?.reasons == ["unattested"])
        #expect(try verify(bare, proof: nil, require: ["bound": false]).json?["valid"] == true)
        #expect(try verify(bare, proof: nil, require: .null).json?["valid"] == true)
        #expect(try verify(bare, proof: nil, require: [:]).json?["valid"] == true)
    }

    @Test func aBoundVerifiedReceiptWithItsProofPassesAndSaysItsPlatform() throws {
        let token = try fixture.issue()
        let answer = try verify(token, proof: try fixture.proof(), require: ["bound": true, "attestation": "verified"])
        #expect(answer.json?["valid"] == true, "\(answer.text)")
        #expect(answer.json?["platform"] == "android")
    }

    @Test func aMalformedPolicyIsRefusedByPointer() throws {
        let token = try fixture.issue()
        let cases: [(JSON, [String])] = [
            ("yes", ["/require"]),
            (["bound": "true"], ["/require/bound"]),
            (["attestation": "rejected"], ["/require/attestation"]),
            (["attestation": true], ["/require/attestation"]),
            (["bound": true, "proof": true], ["/require/proof"]),
            (["a/b": 1], ["/require/a~1b"]),
        ]
        for (require, pointers) in cases {
            let response = try verify(token, proof: nil, require: require)
            #expect(response.status == 400, "\(require.text)")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } == pointers, "\(require.text)")
        }
    }
}
