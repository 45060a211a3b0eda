import TestSupport
import Attestation
import AttestationTesting
import Crypto
import JSON
import Testing

@Suite struct PlayIntegrityDecoderTests {
    static let payload: JSON = ["requestDetails": ["requestHash": "abc"]]

    func decodeError(_ token: String, _ decoder: PlayIntegrityDecoder) -> PlayIntegrityDecodeError? {
        do {
            _ = try decoder.decode(token)
            return nil
        } catch {
            return error
        }
    }

    @Test func opensWhatGoogleSendsAndToleratesHarmlessHeaderMembers() throws {
        let minter = try PlayIntegrityMinter.random()
        let decoder = PlayIntegrityDecoder(keys: try minter.keys())
        #expect(try decoder.decode(minter.token(Self.payload)) == Self.payload)
        let token = try minter.token(payloadBytes: Self.payload.serialized(), jwsHeader: #"{"alg":"ES256","kid":"k1","typ":"JWT"}"#,
                                     jweHeader: #"{"kid":"x","alg":"A256KW","enc":"A256GCM"}"#)
        #expect(try decoder.decode(token) == Self.payload)
        let jws = try decoder.decrypt(Array(try minter.token(Self.payload).utf8))
        #expect(try decoder.verify(jws) == Self.payload)
    }

    @Test(arguments: [
        #"{"alg":"dir","enc":"A256GCM"}"#, #"{"alg":"none","enc":"A256GCM"}"#, #"{"alg":"RSA-OAEP","enc":"A256GCM"}"#,
        #"{"alg":"RSA-OAEP-256","enc":"A256GCM"}"#, #"{"alg":"A128KW","enc":"A256GCM"}"#, #"{"alg":"ECDH-ES","enc":"A256GCM"}"#,
        #"{"alg":"A256GCMKW","enc":"A256GCM"}"#, #"{"alg":"a256kw","enc":"A256GCM"}"#, #"{"enc":"A256GCM"}"#,
        #"{"alg":"A256KW","enc":"A128GCM"}"#, #"{"alg":"A256KW","enc":"A256CBC-HS512"}"#, #"{"alg":"A256KW"}"#,
        #"{"alg":"A256KW","enc":"A256GCM","zip":"DEF"}"#, #"{"alg":"A256KW","enc":"A256GCM","crit":["exp"],"exp":1}"#,
        #"{"alg":"dir","alg":"A256KW","enc":"A256GCM"}"#, #"["A256KW","A256GCM"]"#, #"{"alg":["A256KW"],"enc":"A256GCM"}"#,
    ])
    func refusesEveryOtherJWEHeader(header: String) throws {
        let minter = try PlayIntegrityMinter.random()
        let decoder = PlayIntegrityDecoder(keys: try minter.keys())
        let token = try minter.token(payloadBytes: Self.payload.serialized(), jweHeader: header)
        let error = try #require(decodeError(token, decoder))
        #expect(error.stage == .decryption)
        #expect(error.reason == .decryptionFailed)
    }

    @Test(arguments: [
        #"{"alg":"none"}"#, #"{"alg":"HS256"}"#, #"{"alg":"RS256"}"#, #"{"alg":"PS256"}"#, #"{"alg":"ES384"}"#,
        #"{"alg":"ES256K"}"#, #"{"alg":"EdDSA"}"#, #"{"alg":"es256"}"#, #"{}"#, #"{"alg":"ES256","crit":["b64"],"b64":false}"#,
        #"{"alg":"ES256","alg":"ES256"}"#, "not json",
    ])
    func refusesEveryOtherJWSHeader(header: String) throws {
        let minter = try PlayIntegrityMinter.random()
        let decoder = PlayIntegrityDecoder(keys: try minter.keys())
        let error = try #require(decodeError(try minter.token(payloadBytes: Self.payload.serialized(), jwsHeader: header), decoder))
        #expect(error.stage == .signature)
        #expect(error.reason == .signatureInvalid)
    }

    @Test func refusesUnsignedAndMACedTokensWhateverTheirSignature() throws {
        let minter = try PlayIntegrityMinter.random()
        let decoder = PlayIntegrityDecoder(keys: try minter.keys())
        let body = PlayIntegrityMinter.base64URL(Self.payload.serialized())
        let none = PlayIntegrityMinter.base64URL(Array(#"{"alg":"none"}"#.utf8)) + "." + body + "."
        let hs256Header = PlayIntegrityMinter.base64URL(Array(#"{"alg":"HS256"}"#.utf8))
        let mac = HMACSHA256.authenticate(Array((hs256Header + "." + body).utf8), key: minter.decryptionKey)
        let hs256 = hs256Header + "." + body + "." + PlayIntegrityMinter.base64URL(mac)
        for jws in [none, hs256] {
            let token = try minter.jwe(plaintext: Array(jws.utf8))
            #expect(decodeError(token, decoder)?.reason == .signatureInvalid)
        }
    }

    @Test func otherKeysFailAtTheirLayer() throws {
        let minter = try PlayIntegrityMinter.random()
        let token = try minter.token(Self.payload)
        let otherDecryption = PlayIntegrityDecoder(keys: try PlayIntegrityKeys(decryptionKey: try SecureRandom.bytes(32),
                                                                               verificationKey: minter.signingKey.publicKey))
        let otherVerification = PlayIntegrityDecoder(keys: try PlayIntegrityKeys(decryptionKey: minter.decryptionKey,
                                                                                 verificationKey: try ECPrivateKey.generate().publicKey))
        #expect(decodeError(token, otherDecryption)?.stage == .decryption)
        #expect(decodeError(token, otherVerification)?.stage == .signature)
        #expect(decodeError(token, otherVerification)?.detail == "the signature does not verify with the verification key")
    }

    @Test func refusesGarbageTruncatedAndAlteredTokens() throws {
        let minter = try PlayIntegrityMinter.random()
        let decoder = PlayIntegrityDecoder(keys: try minter.keys())
        let token = try minter.token(Self.payload)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 5)
        var bad: [String] = ["", "garbage", ".", "....", ".....", "a.b.c.d.e", parts.prefix(4).joined(separator: "."),
                             token + ".", token + "." + parts[4], try minter.jws(payloadBytes: Self.payload.serialized()),
                             token + "\n", " " + token, String(token.dropLast()), String(token.prefix(token.count / 2))]
        for index in 0..<5 {
            var cut = parts
            cut[index] = String(cut[index].dropLast())
            bad.append(cut.joined(separator: "."))
            var padded = parts
            padded[index] += "="
            bad.append(padded.joined(separator: "."))
            var empty = parts
            empty[index] = ""
            bad.append(empty.joined(separator: "."))
            var flipped = parts
            var characters = Array(flipped[index])
            characters[characters.count / 2] = characters[characters.count / 2] == "A" ? "B" : "A"
            flipped[index] = String(characters)
            bad.append(flipped.joined(separator: "."))
        }
        bad.append(token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"))
        for candidate in bad where candidate != token {
            #expect(decodeError(candidate, decoder)?.reason == .decryptionFailed, "\(candidate.prefix(40))")
        }
        #expect(decodeError(String(repeating: "A", count: 40_000), decoder)?.detail.contains("over") == true)
        let random = try SecureRandom.bytes(3000)
        #expect(throws: PlayIntegrityDecodeError.self) { try decoder.decode(random) }
    }

    @Test func refusesPlaintextThatIsNoSignedJSONObject() throws {
        let minter = try PlayIntegrityMinter.random()
        let decoder = PlayIntegrityDecoder(keys: try minter.keys())
        let notJWS = try minter.jwe(plaintext: Array("just some text".utf8))
        let notJSON = try minter.token(payloadBytes: Array("not json".utf8))
        let notObject = try minter.token(payloadBytes: Array("[1,2]".utf8))
        let jws = try minter.jws(payloadBytes: Self.payload.serialized())
        let signature = try #require(Base64.decode(String(jws.split(separator: ".")[2])))
        let derSigned = jws.split(separator: ".").prefix(2).joined(separator: ".") + "."
            + PlayIntegrityMinter.base64URL(try #require(derSignature(raw: signature)))
        for token in [notJWS, notJSON, notObject, try minter.jwe(plaintext: Array(derSigned.utf8))] {
            #expect(decodeError(token, decoder)?.reason == .signatureInvalid)
        }
    }

    @Test func aFailedTokenIsForgedWithItsReasonOnly() throws {
        let scene = try PlayIntegrityScene()
        let judgement = scene.judge(token: "garbage")
        #expect(judgement.verdict == Verdict(status: .forged, reasons: ["decryptionFailed"]))
        #expect(judgement.payload == nil)
        #expect(judgement.observed == .empty)
        #expect(judgement.decodeError?.stage == .decryption)
        #expect(judgement.json["payload"] == .null)
        #expect(scene.judge(token: "garbage", seenBefore: true).verdict.reasons == ["decryptionFailed", "verdictReplayed"])
    }
}
