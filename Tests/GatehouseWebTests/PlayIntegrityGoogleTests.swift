import TestSupport
import AttestationTesting
import FakeGoogle
import Foundation
import GatehouseTesting
import JSON
import TestThreads
import Testing

/// Decoding through Google with the service account, over a real socket, against the fake Google over TLS that the
/// server trusts through `--outbound-ca-file`.
@Suite("Play Integrity through Google", .needsSyntheticCA, .needsFakeGoogleTLS)
struct PlayIntegrityGoogleTests {
    let fake: FakeGoogle
    let server: DeviceServer
    let fixture: PlayIntegrityFixture
    let privateKey: String
    let environmentID: String
    let apiKey: String

    init() throws {
        fake = try FakeGoogle()
        server = try DeviceServer(google: fake, ["--log-level", "debug"])
        fixture = try PlayIntegrityFixture()
        privateKey = try TestKeys.rsaPrivateKeyPEM()
        (environmentID, apiKey) = try server.googleEnvironment(fixture, fake: fake, privateKeyPEM: privateKey)
    }

    @Test func googleDecodesAndIsJudged() throws {
        let payload = fixture.payload(nowMillis: PlayIntegrityFixture.nowMillis)
        let token = PlayIntegrityFixture.fakeGoogleToken(payload)
        let response = try server.playIntegrity(apiKey: apiKey, token: token)
        #expect(response.status == 200, "\(response.text)")
        #expect(response.verdict == "verified")
        #expect(response.json?["decodedBy"]?.string == "google")
        #expect(response.json?["observed"]?["packageName"]?.string == PlayIntegrityFixture.packageName)
        #expect(try server.playIntegrity(apiKey: apiKey, token: token).verdict == "rejected verdictReplayed")
        // Google was called on the configured endpoint, for the request's package, with a bearer token.
        let decodes = try fake.received().filter { $0.path.hasSuffix(":decodeIntegrityToken") }
        #expect(decodes.first?.path == "/v1/\(PlayIntegrityFixture.packageName):decodeIntegrityToken")
        #expect(decodes.first?.headers["authorization"]?.hasPrefix("Bearer fake-access-") == true)
    }

    @Test func googleFailuresAreUnavailable() throws {
        #expect(try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:401")).verdict == "unavailable serviceAccountRejected")
        #expect(try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:403")).verdict == "unavailable serviceAccountRejected")
        #expect(try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:500")).verdict == "unavailable googleUnreachable")
        #expect(try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:400")).verdict == "forged decryptionFailed")
        // serviceAccountRejected reaches the checklist from real verification.
        for _ in 0..<20 { _ = try server.playIntegrity(apiKey: apiKey, token: FakeGoogle.token("status:401")) }
        try server.restart(after: SIGTERM)
        let item = try #require(try server.checklistItem(environmentID, "playIntegrity.serviceAccountRejected"))
        #expect(item["status"]?.string == "fail")
        #expect(item["evidence"]?["observed"]?.array?.first?["value"]?.string == PlayIntegrityFixture.packageName)
    }

    /// 20 decodes wait on a Google that answers after 11 s: each is unavailable googleUnreachable (the 10-second
    /// limit, or the bound on calls in flight), and `/healthz` answers all the while.
    @Test func slowGoogleStarvesNothing() throws {
        let client = server.client
        let verdicts = Results<String>(count: 20)
        let done = DispatchGroup()
        for i in 0..<20 {
            // Distinct tokens: one token is sent to Google once, its copies are replays.
            let body = PlayIntegrityFixture.request(apiKey: apiKey, token: FakeGoogle.token("delay:11/\(i)")).serialized()
            done.enter()
            Thread {
                let response = try? client.send("POST", "/api/v4/attestation/play-integrity", headers: [("Content-Type", "application/json")], body: body)
                verdicts.set(i, response?.verdict ?? "failed")
                done.leave()
            }.start()
        }
        // Wait until decodes are held by the fake (a state, not a time), then ask /healthz while they wait.
        let held = waitUntil(seconds: 9) { ((try? fake.received()) ?? []).filter { $0.path.hasSuffix(":decodeIntegrityToken") }.count >= 8 } != nil
        #expect(held, "the fake never held eight decodes")
        for _ in 0..<200 { #expect(try client.send("GET", "/healthz").status == 200) }
        // Every answer came while decodes were still held: a starved worker pool would have answered /healthz only
        // once they gave up on Google, 10 seconds on. (A state, not a timing: how fast /healthz is, is a bench's.)
        let finished = verdicts.values.count
        #expect(finished < 20, "/healthz answered only after every decode had given up on Google")
        done.wait()
        #expect(verdicts.values == Array(repeating: "unavailable googleUnreachable", count: 20))
    }

    /// No decryption key, service-account private key or access token in any log line, response or audit entry.
    @Test func secretsNeverLeave() throws {
        try server.patch(environmentID, .object([JSON.Member("playIntegrity", fixture.localKeys())]))
        let now = PlayIntegrityFixture.nowMillis
        var texts: [String] = []
        // Local decoding, a local failure passed on to Google, Google's answers, and the key check.
        for token in [try fixture.token(fixture.payload(nowMillis: now)),
                      try fixture.token(fixture.payload(nowMillis: now), minter: try PlayIntegrityMinter.random()),
                      PlayIntegrityFixture.fakeGoogleToken(fixture.payload(nowMillis: now)), FakeGoogle.token("status:401"), FakeGoogle.token("status:500")] {
            texts.append(try server.playIntegrity(apiKey: apiKey, token: token).text)
        }
        texts.append(try server.checkKeys(environmentID, PlayIntegrityFixture.keys(fixture.minter)).text)
        let auth = [("Authorization", "Bearer " + server.token)]
        texts.append(try server.client.send("GET", "/api/management/v1/audit?environmentId=\(environmentID)", headers: auth).text)
        texts.append(try server.client.send("GET", "/api/management/v1/environments/\(environmentID)", headers: auth).text)
        try server.restart(after: SIGTERM)
        texts.append(server.log)
        let accessTokens = try fake.received().compactMap { $0.headers["authorization"] }.filter { $0.hasPrefix("Bearer ") }.map { String($0.dropFirst(7)) }
        #expect(!accessTokens.isEmpty)
        let keyLines = privateKey.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        let secrets = [fixture.minter.decryptionKeyBase64, PlayIntegrityMinter.base64URL(fixture.minter.decryptionKey)] + keyLines + accessTokens
        #expect(server.log.contains("play-integrity"), "the access log names the endpoint: the log was read")
        for secret in secrets {
            for text in texts { #expect(!text.contains(secret)) }
        }
    }
}
