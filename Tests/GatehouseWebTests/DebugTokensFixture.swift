import Foundation
import GatehouseReceipts
import GatehouseTesting
import HTTP
import JSON
import Simulator
import Testing

/// A test Gatehouse on a loopback socket, with the test's clock, and a production environment under attack mode that
/// can check both platforms (an Apple app id; an Android app with local Play Integrity keys), so a request without a
/// verified attestation is challenged on either: what the debug token tests drive.
final class DebugTokensFixture {
    static let appleAppID = "ABCDE12345.com.example.app"
    static let package = "com.example.app"
    static let digest = String(repeating: "AB", count: 32)

    let app: TestApp
    let server: LoopbackServer
    let client: PlainHTTP
    let writeToken: String
    let readToken: String
    let environmentID: String
    let publicKey: String
    /// The environment's secret key, for `/api/v4/receipts/verify`.
    let secretKey: String

    init(kind: String = "production") throws {
        app = try TestApp()
        writeToken = try app.token(scope: .write)
        readToken = try app.token(scope: .read, name: "reader")
        server = try LoopbackServer(app)
        client = PlainHTTP(loopbackPort: server.port)
        (environmentID, publicKey, secretKey) = try Self.environment(client, token: writeToken, name: "Debug \(kind)", kind: kind)
    }

    /// Creates an environment of `kind` under attack mode that checks both platforms; returns its id, public key and
    /// secret key.
    static func environment(_ client: PlainHTTP, token: String, name: String, kind: String) throws -> (String, String, String) {
        let auth = [("Authorization", "Bearer " + token), ("Content-Type", "application/json")]
        let created = try client.send("POST", "/api/management/v1/environments", headers: auth,
                                      body: JSON.object([.init("name", .string(name)), .init("kind", .string(kind))]).serialized())
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.json?["id"]?.string)
        let publicKey = try #require(created.json?["keys"]?.array?.first { $0["type"]?.string == "public" }?["value"]?.string)
        let secretKey = try #require(created.json?["keys"]?.array?.first { $0["type"]?.string == "secret" }?["secret"]?.string)
        let minter = try PlayIntegrityMinter.random()
        let patch: JSON = [
            "attackMode": true,
            "appleAppIds": [.string(appleAppID)],
            "androidApps": [["packageName": .string(package), "certificateDigests": [.string(digest)]]],
            "playIntegrity": ["local": ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]],
        ]
        let patched = try client.send("PATCH", "/api/management/v1/environments/\(id)", headers: auth, body: patch.serialized())
        #expect(patched.status == 200, "\(patched.text)")
        return (id, publicKey, secretKey)
    }

    var base: String { "/api/management/v1/environments/\(environmentID)/debug-tokens" }

    /// POST …/debug-tokens with `body`, as the write token (or `token`).
    func create(_ body: JSON, token: String? = nil, environment: String? = nil) throws -> PlainHTTP.Response {
        try client.send("POST", "/api/management/v1/environments/\(environment ?? environmentID)/debug-tokens",
                        headers: [("Authorization", "Bearer " + (token ?? writeToken)), ("Content-Type", "application/json")],
                        body: body.serialized())
    }

    /// Creates a token named `name` (expiring in `days`, default 30); returns its id and value.
    func token(_ name: String, days: Int64? = nil, environment: String? = nil) throws -> (id: String, value: String) {
        var body: JSON = ["name": .string(name)]
        if let days, case .object(var members) = body {
            members.append(.init("expiresAt", .string(Timestamp.format(app.clock.now + days * 86_400))))
            body = .object(members)
        }
        let response = try create(body, environment: environment)
        #expect(response.status == 201, "\(response.text)")
        return (try #require(response.json?["id"]?.string), try #require(response.json?["token"]?.string))
    }

    /// GET …/debug-tokens as the read token: the items.
    func list() throws -> [JSON] {
        let response = try client.send("GET", base, headers: [("Authorization", "Bearer " + readToken)])
        #expect(response.status == 200, "\(response.text)")
        return response.json?["items"]?.array ?? []
    }

    /// DELETE …/debug-tokens/{id} as the write token.
    func revoke(_ id: String) throws -> PlainHTTP.Response {
        try client.send("DELETE", "\(base)/\(id)", headers: [("Authorization", "Bearer " + writeToken)])
    }

    /// POST /api/v4/assess on `platform` with `{"provider": "debug", "token": token}` (nil: no attestation), signed
    /// with `publicKey` (this environment's by default) at the test clock's now.
    func assess(platform: String, debugToken: String?, publicKey: String? = nil) throws -> PlainHTTP.Response {
        let key = publicKey ?? self.publicKey
        let signed = SignedEnvelope.signedText(appID: Self.package, signatureDigest: platform == "android" ? Self.digest : nil, deviceID: "ci-1")
        let envelope = try SignedEnvelope(apiKey: key, platform: platform, signed: signed, timestamp: app.clock.now * 1000)
        return try client.send("POST", "/api/v4/assess", headers: [("Content-Type", "application/json")],
                               body: envelope.json(attestation: debugToken.map { SignedEnvelope.debug($0) }).serialized())
    }

    /// The claims of an assessment's receipt, checked against the served JWKS.
    func receipt(_ response: PlainHTTP.Response, environment: String? = nil) throws -> ReceiptClaims {
        let keys = try client.send("GET", "/api/v4/receipts/keys")
        let verifier = ReceiptVerifier(keys: try JWKS(bytes: keys.body), environment: environment ?? environmentID)
        let checked = verifier.verify(try #require(response.json?["sessionToken"]?.string), method: "GET", pathAndQuery: "/",
                                      proof: nil, nowMilliseconds: app.clock.now * 1000)
        #expect(checked.valid, "\(checked.reasons)")
        return try #require(checked.claims)
    }
}
