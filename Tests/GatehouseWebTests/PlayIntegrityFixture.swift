import AttestationTesting
import Crypto
import FakeGoogle
import Foundation
import GatehouseTesting
import JSON
import Simulator
import Testing

/// What the Play Integrity tests register and mint with: one Android app, its signing certificate's digest, and
/// tokens minted like Google's (random keys per fixture).
struct PlayIntegrityFixture {
    static let packageName = "com.example.app"
    static let requestHash = "2cp24z1iqxl4yqrpm2jzg2bdhdiq2ch9gkh3iwe2v0e"

    /// The app's response keys (the minter holds Google's half).
    let minter: PlayIntegrityMinter
    /// The registered certificate's SHA-256.
    let digest: [UInt8]

    init() throws {
        minter = try PlayIntegrityMinter.random()
        digest = try SecureRandom.bytes(32)
    }

    /// A payload passing every check, made at `nowMillis`, bound to ``requestHash``.
    func payload(nowMillis: Int64, _ change: (inout PlayIntegrityPayloadTemplate) -> Void = { _ in }) -> PlayIntegrityPayloadTemplate {
        var template = PlayIntegrityPayloadTemplate(packageName: Self.packageName, certificateDigest: digest,
                                                    requestHash: Self.requestHash, timestampMillis: nowMillis)
        change(&template)
        return template
    }

    /// A token of `payload` minted with this fixture's keys (or `minter`'s).
    func token(_ payload: PlayIntegrityPayloadTemplate, minter: PlayIntegrityMinter? = nil) throws -> String {
        try (minter ?? self.minter).token(payload.json)
    }

    /// The registration PATCH body: the app with its certificate, and `playIntegrity` as given.
    func registration(playIntegrity: JSON? = nil) -> JSON {
        var members: [JSON.Member] = [JSON.Member("androidApps", .array([.object([
            JSON.Member("packageName", .string(Self.packageName)),
            JSON.Member("certificateDigests", .array([.string(Hex.encode(digest, uppercase: true, separator: ":"))])),
        ])]))]
        if let playIntegrity { members.append(JSON.Member("playIntegrity", playIntegrity)) }
        return .object(members)
    }

    /// `{"local": {decryptionKey, verificationKey}}` of `minter` (this fixture's by default).
    func localKeys(_ minter: PlayIntegrityMinter? = nil) -> JSON {
        let m = minter ?? self.minter
        return .object([JSON.Member("local", Self.keys(m))])
    }

    /// `{decryptionKey, verificationKey}` as Play Console shows them.
    static func keys(_ minter: PlayIntegrityMinter) -> JSON {
        .object([JSON.Member("decryptionKey", .string(minter.decryptionKeyBase64)),
                 JSON.Member("verificationKey", .string(minter.verificationKeyBase64))])
    }

    /// The device request body.
    static func request(apiKey: String, token: String, requestHash: String = requestHash, packageName: String = packageName) -> JSON {
        .object([JSON.Member("apiKey", .string(apiKey)), JSON.Member("packageName", .string(packageName)),
                 JSON.Member("requestHash", .string(requestHash)), JSON.Member("token", .string(token))])
    }

    /// A token the fake Google answers with `payload` as `tokenPayloadExternal`.
    static func fakeGoogleToken(_ payload: PlayIntegrityPayloadTemplate) -> String {
        FakeGoogle.token("payload:" + PlayIntegrityMinter.base64URL(payload.json.serialized()))
    }

    /// Now, Unix milliseconds (the real clock: a served `gatehouse` judges freshness by it).
    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

extension DeviceServer {
    /// PATCHes environment `id` with `body` through the management API, expecting 200.
    func patch(_ id: String, _ body: JSON) throws {
        let response = try client.send("PATCH", "/api/management/v1/environments/\(id)",
                                       headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                       body: body.serialized())
        #expect(response.status == 200, "\(response.text)")
    }

    /// POSTs a Play Integrity judgement request.
    func playIntegrity(apiKey: String, token: String, requestHash: String = PlayIntegrityFixture.requestHash) throws -> PlainHTTP.Response {
        try post("/play-integrity", PlayIntegrityFixture.request(apiKey: apiKey, token: token, requestHash: requestHash))
    }

    /// The key check of environment `id` with `keys`.
    func checkKeys(_ id: String, _ keys: JSON) throws -> PlainHTTP.Response {
        try client.send("POST", "/api/management/v1/environments/\(id)/play-integrity/check",
                        headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")], body: keys.serialized())
    }

    /// A checklist item by id.
    func checklistItem(_ environmentID: String, _ id: String) throws -> JSON? {
        try checklist(environmentID)["items"]?.array?.first { $0["id"]?.string == id }
    }
}

extension DeviceServer {
    /// A server decoding through `fake`: its endpoint, its throwaway CA and its token host, no per-address limit.
    convenience init(google fake: FakeGoogle, _ extraArguments: [String] = []) throws {
        try self.init(["--device-rate-per-address", "0", "--play-integrity-endpoint", fake.baseURL, "--outbound-ca-file", fake.caFile,
                       "--token-uri-hosts", fake.authority] + extraArguments)
    }

    /// A production environment registering `fixture`'s app with a service account of RSA key `privateKeyPEM` whose
    /// token_uri is `fake`'s; its id and public key.
    func googleEnvironment(_ fixture: PlayIntegrityFixture, fake: FakeGoogle, privateKeyPEM: String) throws -> (id: String, publicKey: String) {
        let account = TestKeys.serviceAccountJSON(privateKeyPEM: privateKeyPEM)
            .replacingOccurrences(of: "https://oauth2.googleapis.com/token", with: fake.baseURL + "/token")
        let created = try environment(kind: "production", appIds: [])
        try patch(created.id, fixture.registration(playIntegrity: .object([JSON.Member("serviceAccount", try JSONParser.parse(Array(account.utf8)))])))
        return created
    }
}
