import TestSupport
import Foundation
import Crypto
import GatehouseReceipts
import JSON
import Testing

/// Checking receipts offline: signature, expiry, environment, and tampering of each part.
@Suite("Receipt verification")
struct ReceiptVerifierTests {
    let fixture: ReceiptFixture

    init() throws {
        fixture = try ReceiptFixture()
    }

    func check(_ token: String, at now: Int64 = ReceiptFixture.at(10), proof: String? = nil, environment: String = ReceiptFixture.environment,
               method: String = "GET", path: String = "/api/orders?page=2") -> ReceiptVerification {
        ReceiptVerifier(keys: fixture.keys, environment: environment).verify(token, method: method, pathAndQuery: path, proof: proof, nowMilliseconds: now)
    }

    @Test func unboundReceiptVerifiesAndReportsItsClaims() throws {
        let result = check(try fixture.token(bound: false))
        #expect(result.valid)
        #expect(result.reasons.isEmpty)
        #expect(result.environment == ReceiptFixture.environment)
        #expect(result.action == .allow)
        #expect(result.attestation == ReceiptAttestation(provider: "app-attest", status: "verified"))
        #expect(!result.bound)
        #expect(result.expiresAt == ReceiptFixture.issuedAt + 600)
        #expect(result.json["expiresAt"]?.string == Timestamp.format(ReceiptFixture.issuedAt + 600))
    }

    @Test func expiresAfterTenMinutes() throws {
        let token = try fixture.token(bound: false)
        #expect(check(token, at: ReceiptFixture.at(599)).valid)
        #expect(check(token, at: ReceiptFixture.at(600)).reasons == [.expired])
        #expect(check(token, at: ReceiptFixture.at(86_400)).reasons == [.expired])
        #expect(check(token, at: ReceiptFixture.at(-60)).valid)  // issued a little ahead of this clock
        #expect(check(token, at: ReceiptFixture.at(-61)).reasons == [.expired])
    }

    @Test func anotherEnvironmentsReceiptIsWrongEnvironment() throws {
        let result = check(try fixture.token(bound: false, environment: "env_other"))
        #expect(result.reasons == [.wrongEnvironment])
        #expect(result.environment == "env_other")
        #expect(check(try fixture.token(bound: false, environment: "env_other"), at: ReceiptFixture.at(700)).reasons == [.expired, .wrongEnvironment])
    }

    @Test func tamperedPayloadHeaderOrSignatureFailsTheSignature() throws {
        let token = try fixture.token(bound: false)
        var segments = ReceiptFixture.segments(token)
        var payload = segments[1]
        payload = Array(String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "\"allow\"", with: "\"allow\" ").utf8)
        let altered = [segments[0], payload, segments[2]]
        #expect(check(ReceiptFixture.join(altered)).reasons == [.signatureInvalid])
        #expect(check(ReceiptFixture.join(altered)).claims == nil)

        let header = Array(#"{"alg":"ES256","kid":"\#(fixture.signer.kid)","typ":"gatehouse-receipt+jwt","x":1}"#.utf8)
        #expect(check(ReceiptFixture.join([header, segments[1], segments[2]])).reasons == [.signatureInvalid])

        segments[2][10] ^= 0x01
        #expect(check(ReceiptFixture.join(segments)).reasons == [.signatureInvalid])
        // The same signature as DER is not ES256.
        let original = ReceiptFixture.segments(token)
        let der = try #require(derSignature(raw: original[2]))
        #expect(check(ReceiptFixture.join([original[0], original[1], der])).reasons == [.signatureInvalid])
    }

    @Test(arguments: ["none", "HS256", "ES384", "RS256"])
    func onlyES256IsAccepted(_ algorithm: String) throws {
        let segments = ReceiptFixture.segments(try fixture.token(bound: false))
        let header = Array(#"{"alg":"\#(algorithm)","kid":"\#(fixture.signer.kid)","typ":"gatehouse-receipt+jwt"}"#.utf8)
        #expect(check(ReceiptFixture.join([header, segments[1], segments[2]])).reasons == [.signatureInvalid])
        #expect(check(ReceiptFixture.join([header, segments[1], []])).reasons == [.signatureInvalid])
        // HS256 keyed with the public JWK's text (the classic confusion) is still not ES256.
        let input = Array((ReceiptFixture.join([header, segments[1]])).utf8)
        let mac = HMACSHA256.authenticate(input, key: Array(fixture.keys.json.text.utf8))
        #expect(check(ReceiptFixture.join([header, segments[1], mac])).reasons == [.signatureInvalid])
    }

    @Test func unknownKidIsSignatureInvalid() throws {
        let other = try ReceiptFixture()
        #expect(check(try other.token(bound: false)).reasons == [.signatureInvalid])
    }

    @Test func headerMustBeOurs() throws {
        let segments = ReceiptFixture.segments(try fixture.token(bound: false))
        let kid = fixture.signer.kid
        for header in [#"{"alg":"ES256","kid":"\#(kid)","typ":"JWT"}"#, #"{"alg":"ES256","kid":"\#(kid)"}"#,
                       #"{"alg":"ES256","kid":"\#(kid)","typ":"gatehouse-receipt+jwt","crit":["exp"]}"#,
                       #"{"alg":"ES256","alg":"ES256","kid":"\#(kid)","typ":"gatehouse-receipt+jwt"}"#,
                       #"{"alg":"ES256","typ":"gatehouse-receipt+jwt"}"#, "[]", "{"] {
            #expect(check(ReceiptFixture.join([Array(header.utf8), segments[1], segments[2]])).reasons == [.malformed], "\(header)")
        }
    }

    @Test(arguments: ["", ".", "..", "a.b.c", "a.b", "a.b.c.d", "eyJ.eyJ.", "%%%.%%%.%%%", "e30.e30.AAAA", "e30=.e30.e30",
                      String(repeating: "A", count: 10_000), "é.é.é"])
    func garbageIsMalformed(_ token: String) {
        let result = check(token)
        #expect(!result.valid)
        #expect(result.reasons == [.malformed] || result.reasons == [.signatureInvalid])
        #expect(result.claims == nil)
    }

    @Test func paddedOrStandardAlphabetSegmentsAreMalformed() throws {
        let token = try fixture.token(bound: false)
        let parts = token.split(separator: ".").map(String.init)
        #expect(check(parts[0] + "=." + parts[1] + "." + parts[2]).reasons == [.malformed])
        #expect(check(parts[0] + "." + parts[1] + "." + parts[2] + "=").reasons == [.malformed])
        #expect(check(" " + token).reasons == [.malformed])
        let standard = parts.map { $0.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") }.joined(separator: ".")
        if standard != token { #expect(check(standard).reasons == [.malformed]) }
    }
}
