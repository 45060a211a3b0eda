import HTTPClient
import TestSupport
import DomainTesting
import Crypto
import FakeGoogle
import Foundation
import Gatehouse
import JSON
import Testing

/// The Google decoder against a fake Google over TLS (token endpoint and decodeIntegrityToken).
@Suite(.needsFakeGoogleTLS)
struct GoogleDecoderTests {
    let fake: FakeGoogle

    init() throws {
        fake = try FakeGoogle()
    }

    @Test func decodesThroughGoogle() throws {
        let account = try FakeServiceAccount(fake: fake)
        let payload = try fake.decoder().decode(integrityToken: "token-abc", packageName: "com.example.app",
                                                serviceAccount: account.key)
        #expect(payload["requestDetails"]?["requestHash"]?.string == "token-abc")
        #expect(payload["requestDetails"]?["requestPackageName"]?.string == "com.example.app")
        #expect(payload["appIntegrity"]?["appRecognitionVerdict"]?.string == "PLAY_RECOGNIZED")

        let decode = try #require(try fake.decodeRequests().only)
        #expect(decode.method == "POST")
        #expect(decode.path == "/v1/com.example.app:decodeIntegrityToken")
        #expect(decode.headers["authorization"] == "Bearer fake-access-1")
        #expect(decode.headers["content-type"] == "application/json")
        #expect(try JSONParser.parse(Array(decode.body.utf8)) == ["integrityToken": "token-abc"])
    }

    @Test func signsTheJWTBearerGrantWithTheServiceAccountKey() throws {
        let clock = TestClock()
        let account = try FakeServiceAccount(fake: fake)
        _ = try fake.decoder(clock: clock).decode(integrityToken: "t", packageName: "com.example.app",
                                                  serviceAccount: account.key)
        let request = try #require(try fake.tokenRequests().only)
        #expect(request.method == "POST")
        #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
        let form = formFields(request.body)
        #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer")
        let jwt = try ReceivedJWT(try #require(form["assertion"]))

        #expect(jwt.header == ["alg": "RS256", "typ": "JWT", "kid": "kid-1"])
        #expect(jwt.claims["iss"]?.string == FakeServiceAccount.clientEmail)
        #expect(jwt.claims["scope"]?.string == "https://www.googleapis.com/auth/playintegrity")
        #expect(jwt.claims["aud"]?.string == account.tokenURI)
        #expect(jwt.claims["iat"]?.integer == Int(clock.now))
        #expect(jwt.claims["exp"]?.integer == Int(clock.now) + 3600)
        #expect(account.privateKey.publicKey.isValidRS256Signature(jwt.signature, for: jwt.signingInput))
        var tampered = jwt.signingInput
        tampered[tampered.count - 1] ^= 1
        #expect(!account.privateKey.publicKey.isValidRS256Signature(jwt.signature, for: tampered))
        let stranger = try RSAPrivateKey.generate()
        #expect(!stranger.publicKey.isValidRS256Signature(jwt.signature, for: jwt.signingInput))
    }

    @Test func oneTokenRequestServesManyConcurrentDecodes() throws {
        // The token endpoint answers slowly, so every decode starts while the first token request is in flight.
        let account = try FakeServiceAccount(fake: fake, tokenQuery: "delay=0.5")
        let decoder = try fake.decoder { $0.maxConcurrentCalls = 16 }
        let calls = ConcurrentCalls(8) { index in
            Result { () throws(GoogleDecodeError) -> JSON in
                try decoder.decode(integrityToken: "concurrent-\(index)", packageName: "com.example.app",
                                   serviceAccount: account.key)
            }
        }
        #expect(calls.wait(seconds: 30))
        #expect(calls.failures().isEmpty, "\(calls.failures())")
        for index in 0..<4 {
            _ = try decoder.decode(integrityToken: "later-\(index)", packageName: "com.example.app", serviceAccount: account.key)
        }
        #expect(try fake.tokenRequests().count == 1)
        let decodes = try fake.decodeRequests()
        #expect(decodes.count == 12)
        #expect(decodes.allSatisfy { $0.headers["authorization"] == "Bearer fake-access-1" })
    }

    @Test func asksForANewTokenShortlyBeforeTheOldOneExpires() throws {
        let clock = TestClock()
        let account = try FakeServiceAccount(fake: fake, tokenQuery: "expires_in=3600")
        let decoder = try fake.decoder(clock: clock)
        _ = try decoder.decode(integrityToken: "a", packageName: "com.example.app", serviceAccount: account.key)
        clock.advance(by: 3600 - 61)
        _ = try decoder.decode(integrityToken: "b", packageName: "com.example.app", serviceAccount: account.key)
        #expect(try fake.tokenRequests().count == 1)
        clock.advance(by: 1)
        _ = try decoder.decode(integrityToken: "c", packageName: "com.example.app", serviceAccount: account.key)
        #expect(try fake.tokenRequests().count == 2)
        #expect(try fake.decodeRequests().last?.headers["authorization"] == "Bearer fake-access-2")
    }

    @Test(arguments: [401, 403])
    func aRefusedDecodeIsServiceAccountRejectedAndDropsTheToken(status: Int) throws {
        let account = try FakeServiceAccount(fake: fake)
        let decoder = try fake.decoder()
        let error = try #require(decodeError(decoder, "status:\(status)", account))
        #expect(error.reason == "serviceAccountRejected")
        #expect(!"\(error)".contains("fake-access"))
        _ = try decoder.decode(integrityToken: "fine", packageName: "com.example.app", serviceAccount: account.key)
        #expect(try fake.tokenRequests().count == 2)
    }

    @Test(arguments: [400, 401, 403])
    func aRefusedGrantIsServiceAccountRejected(status: Int) throws {
        let account = try FakeServiceAccount(fake: fake, tokenQuery: "status=\(status)")
        let error = try #require(decodeError(try fake.decoder(), "t", account))
        #expect(error == .serviceAccountRejected("the token endpoint answered \(status): invalid_grant"))
        #expect(try fake.decodeRequests().isEmpty)
    }

    @Test(arguments: [500, 502, 503, 429])
    func googleFailingIsGoogleUnreachable(status: Int) throws {
        let account = try FakeServiceAccount(fake: fake)
        let decoder = try fake.decoder()
        #expect(decodeError(decoder, "status:\(status)", account)?.reason == "googleUnreachable")
        // The token is still good: a 5xx says nothing about the service account.
        _ = try decoder.decode(integrityToken: "fine", packageName: "com.example.app", serviceAccount: account.key)
        #expect(try fake.tokenRequests().count == 1)

        let failingGrant = try FakeServiceAccount(fake: fake, tokenQuery: "status=\(status)")
        #expect(decodeError(decoder, "t", failingGrant)?.reason == "googleUnreachable")
    }

    @Test func aSlowGoogleIsGoogleUnreachable() throws {
        let account = try FakeServiceAccount(fake: fake)
        let decoder = try fake.decoder { $0.timeout = .milliseconds(500) }
        let started = ContinuousClock.now
        #expect(decodeError(decoder, "delay:30", account)?.reason == "googleUnreachable")
        let slowGrant = try FakeServiceAccount(fake: fake, tokenQuery: "delay=30")
        #expect(decodeError(decoder, "t", slowGrant)?.reason == "googleUnreachable")
        // Two 500 ms timeouts, not two 30 s answers (a wide margin for a loaded machine).
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func boundsTheDecodesInFlightSoASlowGoogleHoldsFewWorkers() throws {
        // Two decodes wait on a slow token endpoint (one fetching, one waiting for it); a third fails at once.
        let account = try FakeServiceAccount(fake: fake, tokenQuery: "delay=4")
        let decoder = try fake.decoder {
            $0.maxConcurrentCalls = 2
            $0.queueTimeout = .zero
        }
        let calls = ConcurrentCalls(2) { index in
            Result { () throws(GoogleDecodeError) -> JSON in
                try decoder.decode(integrityToken: "slow-\(index)", packageName: "com.example.app", serviceAccount: account.key)
            }
        }
        #expect(waitUntil { decoder.decodesInFlight >= 2 } != nil)
        #expect(decodeError(decoder, "third", account) == .googleUnreachable("too many decodes through Google in flight"))
        // It failed without waiting for a slot: the two slow decodes (4 s each) still hold theirs.
        #expect(decoder.decodesInFlight >= 2)
        #expect(calls.wait())
        #expect(calls.failures().isEmpty)
        #expect(try fake.tokenRequests().count == 1)
        #expect(try fake.decodeRequests().map(\.body).sorted() == [#"{"integrityToken":"slow-0"}"#, #"{"integrityToken":"slow-1"}"#])
    }

    @Test func anUnreachableOrUntrustedGoogleIsGoogleUnreachable() throws {
        let account = try FakeServiceAccount(fake: fake)
        // The token comes from the fake; the decode goes to a closed port.
        let closed = try GoogleDecoder(configuration: GoogleDecoderConfiguration(endpoint: "https://127.0.0.1:1", caFile: fake.caFile,
                                                                                 tokenEndpoints: TokenEndpoints(extraHosts: [fake.authority])))
        #expect(decodeError(closed, "t", account)?.reason == "googleUnreachable")
        #expect(try fake.received().map(\.path) == ["/token"])
        // Without the throwaway CA the fake's certificate is refused: nothing more reaches it.
        let untrusting = try GoogleDecoder(configuration: GoogleDecoderConfiguration(endpoint: fake.baseURL,
                                                                                     tokenEndpoints: TokenEndpoints(extraHosts: [fake.authority])))
        #expect(decodeError(untrusting, "t", account)?.reason == "googleUnreachable")
        #expect(try fake.received().map(\.path) == ["/token"])
    }

    /// A key saved before the allow-list, or edited in the database: its token_uri is checked again before each call.
    @Test func aTokenURIOutsideTheAllowedHostsIsRejectedWithoutACall() throws {
        let account = try FakeServiceAccount(fake: fake)
        let strict = try GoogleDecoder(configuration: GoogleDecoderConfiguration(endpoint: fake.baseURL, caFile: fake.caFile))
        #expect(decodeError(strict, "t", account)?.reason == "serviceAccountRejected")
        #expect(try fake.received().isEmpty, "the signed assertion left for a host that is not Google's")
    }

    @Test func aTokenGoogleCannotDecodeIsNotAGoogleFailure() throws {
        let account = try FakeServiceAccount(fake: fake)
        let error = decodeError(try fake.decoder(), "status:400", account)
        #expect(error == .tokenNotDecodable(status: 400))
        #expect(error?.reason == "decryptionFailed")
    }

    @Test func refusesAnInvalidPackageNameWithoutCallingGoogle() throws {
        let account = try FakeServiceAccount(fake: fake)
        for name in ["../../oauth", "com.example.app:other", "", "1com.example"] {
            #expect(throws: GoogleDecodeError.invalidPackageName) {
                try fake.decoder().decode(integrityToken: "t", packageName: name, serviceAccount: account.key)
            }
        }
        #expect(try fake.received().isEmpty)
    }

    @Test func neverShowsTheServiceAccountsPrivateKey() throws {
        let account = try FakeServiceAccount(fake: fake)
        let pemBody = account.privateKey.pkcs8PEM.split(separator: "\n")[1]
        for text in ["\(account.key)", String(reflecting: account.key), dumped(account.key)] {
            #expect(!text.contains(pemBody))
            #expect(!text.contains("PRIVATE KEY"))
            #expect(text.contains(FakeServiceAccount.clientEmail) || text.isEmpty)
        }
    }

    @Test func refusesAnEndpointThatIsNotHTTPS() {
        #expect {
            try GoogleDecoder(configuration: GoogleDecoderConfiguration(endpoint: "http://playintegrity.googleapis.com"))
        } throws: { if case HTTPClientError.invalidConfiguration = $0 { true } else { false } }
    }

    private func decodeError(_ decoder: GoogleDecoder, _ token: String, _ account: FakeServiceAccount) -> GoogleDecodeError? {
        do {
            _ = try decoder.decode(integrityToken: token, packageName: "com.example.app", serviceAccount: account.key)
            return nil
        } catch {
            return error
        }
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}

extension Array {
    /// The single element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
