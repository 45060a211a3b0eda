import FakeGoogle
import Foundation
import GatehouseTesting
import JSON
import Simulator
import Testing

/// A service account's `token_uri` receives an assertion signed with the account's private key, which buys an access
/// token from Google: only Google's endpoint is taken, plus the hosts `--token-uri-hosts` names (over a real socket).
@Suite("Service account token_uri", .serialized, .needsSyntheticCA, .needsFakeGoogleTLS)
struct TokenURITests {
    static func account(tokenURI: String) throws -> JSON {
        let text = TestKeys.serviceAccountJSON(privateKeyPEM: try TestKeys.rsaPrivateKeyPEM())
            .replacingOccurrences(of: "https://oauth2.googleapis.com/token", with: tokenURI)
        return try JSONParser.parse(Array(text.utf8))
    }

    func patch(_ server: DeviceServer, _ id: String, tokenURI: String) throws -> PlainHTTP.Response {
        let body = JSON.object([.init("playIntegrity", .object([.init("serviceAccount", try Self.account(tokenURI: tokenURI))]))])
        return try server.client.send("PATCH", "/api/management/v1/environments/\(id)",
                                      headers: [("Authorization", "Bearer " + server.token), ("Content-Type", "application/json")], body: body.serialized())
    }

    @Test func onlyGooglesEndpointAndNamedHostsAreTaken() throws {
        let fake = try FakeGoogle()
        let strict = try DeviceServer()
        let (id, _) = try strict.environment(kind: "production", appIds: [])
        for uri in ["https://attacker.example/token", "https://oauth2.googleapis.com.attacker.example/token",
                    "https://oauth2.googleapis.com@attacker.example/token", "http://oauth2.googleapis.com/token", fake.baseURL + "/token"] {
            let refused = try patch(strict, id, tokenURI: uri)
            #expect(refused.status == 422, "\(uri): \(refused.status)")
            #expect(refused.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } == ["/playIntegrity/serviceAccount/token_uri"], "\(uri)")
        }
        #expect(try patch(strict, id, tokenURI: "https://oauth2.googleapis.com/token").status == 200)

        let named = try DeviceServer(["--token-uri-hosts", fake.authority])
        let (other, _) = try named.environment(kind: "production", appIds: [])
        #expect(try patch(named, other, tokenURI: fake.baseURL + "/token").status == 200)
        #expect(try patch(named, other, tokenURI: "https://attacker.example/token").status == 422)
    }
}
