import Crypto
import GatehouseReceipts
import JSON
import Testing

/// Signing receipts and reading them back: the header, the claims, the signature form.
@Suite("Receipt signing")
struct ReceiptSigningTests {
    let fixture: ReceiptFixture

    init() throws {
        fixture = try ReceiptFixture()
    }

    @Test func headerClaimsAndSignatureAreAsTheContractSays() throws {
        let token = try fixture.token(bound: true)
        let segments = ReceiptFixture.segments(token)
        try #require(segments.count == 3)
        let header = try JSONParser.parse(segments[0])
        #expect(header == ["alg": "ES256", "kid": .string(fixture.signer.kid), "typ": "gatehouse-receipt+jwt"])
        let claims = try JSONParser.parse(segments[1])
        #expect(claims["iss"]?.string == "gatehouse")
        #expect(claims["env"]?.string == ReceiptFixture.environment)
        #expect(claims["sub"]?.string == "req_1")
        let iat = try #require(claims["iat"]?.integer)
        let exp = try #require(claims["exp"]?.integer)
        #expect(exp - iat == 600)
        #expect(claims["action"]?.string == "allow")
        #expect(claims["att"] == ["provider": "app-attest", "status": "verified"])
        let jwk = try #require(claims["cnf"]?["jwk"])
        #expect(try PublicJWK(json: jwk) == PublicJWK(publicKey: fixture.phone.publicKey))
        #expect(jwk["kid"] == nil && jwk["d"] == nil)
        #expect(segments[2].count == 64)  // raw r ‖ s, not DER
        #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
    }

    @Test func unboundReceiptHasNoCnfAndNullAtt() throws {
        var claims = fixture.claims(bound: false, action: .challenge)
        claims.attestation = nil
        let payload = try JSONParser.parse(ReceiptFixture.segments(try fixture.signer.sign(claims))[1])
        #expect(payload["cnf"] == nil)
        #expect(payload["att"] == .null)
        #expect(payload["action"]?.string == "challenge")
    }

    @Test func signerPrintsItsKidOnly() {
        let kid = fixture.signer.kid
        #expect("\(fixture.signer)" == "ReceiptSigner(kid: \(kid))")
        #expect(String(reflecting: fixture.signer) == "ReceiptSigner(kid: \(kid))")
        var dumped = ""
        dump(fixture.signer, to: &dumped)
        #expect(!dumped.contains("pkcs8DER"), "\(dumped)")
    }

    @Test func claimsRoundTrip() throws {
        let claims = fixture.claims(bound: true)
        #expect(try ReceiptClaims(payload: claims.json.serialized()) == claims)
        #expect(claims.expiresAt - claims.issuedAt == ReceiptClaims.lifetime)
    }

    @Test(arguments: [
        #"{"iss":"other","env":"e","sub":"s","iat":1,"exp":601,"action":"allow","att":null}"#,
        #"{"iss":"gatehouse","env":"e","sub":"s","iat":1,"exp":602,"action":"allow","att":null}"#,
        #"{"iss":"gatehouse","env":"e","sub":"s","iat":1,"exp":1,"action":"allow","att":null}"#,
        #"{"iss":"gatehouse","env":"e","sub":"s","iat":1.5,"exp":601,"action":"allow","att":null}"#,
        #"{"iss":"gatehouse","env":"e","sub":"s","iat":1,"exp":601,"action":"block","att":null}"#,
        #"{"iss":"gatehouse","env":"","sub":"s","iat":1,"exp":601,"action":"allow","att":null}"#,
        #"{"iss":"gatehouse","env":"e","sub":"s","iat":1,"exp":601,"action":"allow","att":{"provider":"x"}}"#,
        #"{"iss":"gatehouse","env":"e","sub":"s","iat":1,"exp":601,"action":"allow","att":null,"cnf":{}}"#,
        #"{"iss":"gatehouse","env":"e","env":"f","sub":"s","iat":1,"exp":601,"action":"allow","att":null}"#,
        #"[1]"#, #"not json"#,
    ])
    func claimsAreReadStrictly(_ text: String) {
        #expect(throws: ReceiptError.self) { try ReceiptClaims(payload: Array(text.utf8)) }
    }

    @Test func jwksRoundTripsAndIsReadStrictly() throws {
        let text = fixture.keys.json.text
        let parsed = try JWKS(text: text)
        #expect(parsed == fixture.keys)
        let entry = try #require(parsed.json["keys"]?.array?.first)
        #expect(entry["kty"] == "EC" && entry["crv"] == "P-256" && entry["use"] == "sig" && entry["alg"] == "ES256")
        #expect(entry["kid"]?.string == fixture.signer.kid)
        let jwk = try #require(fixture.keys.keys.first?.json)
        let duplicate = JSON.object([.init("keys", .array([jwk, jwk]))]).text
        for bad in [#"{"keys": {}}"#, #"{"keys": [{"kty":"RSA","n":"AQAB","e":"AQAB","kid":"a"}]}"#, #"{}"#, duplicate,
                    #"{"keys":[{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA","kid":"a"}]}"#, "garbage"] {
            #expect(throws: ReceiptError.self, "\(bad)") { try JWKS(text: bad) }
        }
        #expect(throws: ReceiptError(.tooLarge, "the JWKS is over 65536 bytes")) { try JWKS(bytes: Array(repeating: 0x20, count: 70_000)) }
    }

    @Test func privateKeyMaterialIsRefusedInAJWK() throws {
        guard case .object(var members) = PublicJWK(publicKey: fixture.phone.publicKey).json else { Issue.record("not an object"); return }
        #expect(throws: Never.self) { try PublicJWK(json: .object(members)) }
        members.append(.init("d", "AAAA"))
        #expect(throws: ReceiptError.self) { try PublicJWK(json: .object(members)) }
    }

    @Test func thumbprintIsOverTheRequiredMembersInLexicalOrder() throws {
        // RFC 7638 §3.2: the thumbprint is base64url(SHA-256('{"crv":"P-256","kty":"EC","x":"…","y":"…"}')).
        let jwk = PublicJWK(publicKey: fixture.phone.publicKey)
        let x = try #require(jwk.json["x"]?.string)
        let y = try #require(jwk.json["y"]?.string)
        let canonical = #"{"crv":"P-256","kty":"EC","x":""# + x + #"","y":""# + y + #""}"#
        #expect(jwk.thumbprint == Base64.encode(SHA256.hash(Array(canonical.utf8)), alphabet: .urlSafe, padded: false))
        #expect(jwk.thumbprint.count == 43)
    }
}
