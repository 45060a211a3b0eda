import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import JSON
import Testing

@Suite("Tokens, keys and audit")
struct AuthAndKeysAPITests {
    static let base = "/api/management/v1"

    /// The Bearer scheme in any case, then white space, then the token with white space around it ignored.
    @Test(arguments: [
        ("Bearer %", 200), ("bearer %", 200), ("BEARER   %  ", 200), ("Bearer\t%", 200), (" Bearer %", 200),
        ("Bearer%", 401), ("Basic %", 401), ("Bearer ", 401), ("Bear %", 401), ("Bearerx %", 401), ("%", 401),
        ("Bearer % extra", 401),
    ])
    func bearerHeaderForms(_ form: String, _ status: Int) throws {
        let app = try TestApp()
        let token = try app.token(scope: .read)
        let value = form.replacingOccurrences(of: "%", with: token)
        #expect(app.send("GET", "\(Self.base)/environments", headers: ["Authorization": value]).status == status, "\(form)")
    }

    @Test func tokenScopes() throws {
        let app = try TestApp()
        let missing = app.send("GET", "\(Self.base)/environments")
        #expect(missing.status == 401)
        #expect(missing.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        #expect(app.send("GET", "\(Self.base)/environments", headers: ["Authorization": "Bearer gtm_unknown"]).status == 401)
        #expect(app.send("GET", "\(Self.base)/environments", headers: ["Authorization": "Basic eDp5"]).status == 401)

        let read = try app.token(scope: .read)
        let readAuth: Headers = ["Authorization": "Bearer " + read]
        #expect(app.send("GET", "\(Self.base)/environments", headers: readAuth).status == 200)
        let forbidden = app.send("POST", "\(Self.base)/environments", json: ["name": "x", "kind": "production"], headers: readAuth)
        #expect(forbidden.status == 403)
        #expect(app.send("GET", "\(Self.base)/environments", headers: ["Authorization": "Bearer " + (try app.token(scope: .write))]).json?["environments"]?.array?.isEmpty == true)

        // Revoked tokens stop at once.
        let tokens = app.application.domain.tokens
        let listed = try tokens.list()
        let readToken = try #require(listed.first { $0.scope == .read })
        #expect(readToken.lastUsedAt != nil)
        try tokens.revoke(readToken.id, actor: .system)
        #expect(app.send("GET", "\(Self.base)/environments", headers: readAuth).status == 401)
    }

    @Test func lastUsedIsCoalesced() throws {
        let app = try TestApp()
        let secret = try app.token(scope: .read)
        let auth: Headers = ["Authorization": "Bearer " + secret]
        app.send("GET", "\(Self.base)/environments", headers: auth)
        let first = try #require(try app.application.domain.tokens.list().first?.lastUsedAt)
        app.clock.advance(by: 30)
        app.send("GET", "\(Self.base)/environments", headers: auth)
        #expect(try app.application.domain.tokens.list().first?.lastUsedAt == first)
        app.clock.advance(by: 31)
        app.send("GET", "\(Self.base)/environments", headers: auth)
        #expect(try app.application.domain.tokens.list().first?.lastUsedAt == first + 61)
    }

    @Test func keysCreateRollRevoke() throws {
        let app = try TestApp()
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        let id = try #require(app.send("POST", "\(Self.base)/environments", json: ["name": "P", "kind": "development"], headers: auth).json?["id"]?.string)
        let created = app.send("POST", "\(Self.base)/environments/\(id)/keys", json: ["type": "secret", "name": "CI"], headers: auth)
        #expect(created.status == 201)
        let secret = try #require(created.json?["secret"]?.string)
        #expect(secret.hasPrefix("sk_test_"))
        #expect(secret.count >= 8 + 52)
        let keyID = try #require(created.json?["id"]?.string)

        let list = app.send("GET", "\(Self.base)/environments/\(id)/keys", headers: auth)
        #expect(list.json?["keys"]?.array?.count == 3)
        #expect(!list.text.contains(secret))
        #expect(list.text.contains(String(secret.suffix(4))))

        // The secret key authenticates ingest until revoked; rolled, it keeps working through its grace period.
        let verdicts: JSON = ["verdicts": [["at": .string(Timestamp.format(app.clock.now)), "platform": "ios", "provider": "app-attest", "status": "verified"]]]
        #expect(app.send("POST", "/api/ingest/v1/verdicts", json: verdicts, headers: ["Authorization": "Bearer " + secret]).status == 202)
        let rolled = app.send("POST", "\(Self.base)/environments/\(id)/keys/\(keyID)/roll", json: ["expiresInHours": 2], headers: auth)
        #expect(rolled.status == 201, "\(rolled.text)")
        let newSecret = try #require(rolled.json?["secret"]?.string)
        #expect(newSecret != secret)
        let afterRoll = app.send("GET", "\(Self.base)/environments/\(id)/keys", headers: auth)
        let old = try #require(afterRoll.json?["keys"]?.array?.first { $0["id"]?.string == keyID })
        #expect(old["state"]?.string == "expiring")
        #expect(app.send("POST", "/api/ingest/v1/verdicts", json: verdicts, headers: ["Authorization": "Bearer " + secret]).status == 202)
        app.clock.advance(by: 2 * 3600)
        let verdictsNow: JSON = ["verdicts": [["at": .string(Timestamp.format(app.clock.now)), "platform": "ios", "provider": "app-attest", "status": "verified"]]]
        #expect(app.send("POST", "/api/ingest/v1/verdicts", json: verdictsNow, headers: ["Authorization": "Bearer " + secret]).status == 401)
        #expect(app.send("POST", "/api/ingest/v1/verdicts", json: verdictsNow, headers: ["Authorization": "Bearer " + newSecret]).status == 202)
        // Rolling an already rolled key is a conflict; grace bounds are validated.
        #expect(app.send("POST", "\(Self.base)/environments/\(id)/keys/\(keyID)/roll", json: ["expiresInHours": 1], headers: auth).status == 409)
        let newID = try #require(rolled.json?["id"]?.string)
        let badGrace = app.send("POST", "\(Self.base)/environments/\(id)/keys/\(newID)/roll", json: ["expiresInHours": 169], headers: auth)
        #expect(badGrace.status == 422)
        #expect(badGrace.json?["errors"]?.array?.first?["pointer"]?.string == "/expiresInHours")

        // Revoke: at once.
        #expect(app.send("DELETE", "\(Self.base)/environments/\(id)/keys/\(newID)", headers: auth).status == 204)
        #expect(app.send("POST", "/api/ingest/v1/verdicts", json: verdictsNow, headers: ["Authorization": "Bearer " + newSecret]).status == 401)
        #expect(app.send("DELETE", "\(Self.base)/environments/\(id)/keys/\(newID)", headers: auth).status == 409)
        #expect(app.send("DELETE", "\(Self.base)/environments/\(id)/keys/key_nope", headers: auth).status == 404)

        let invalid = app.send("POST", "\(Self.base)/environments/\(id)/keys", json: ["type": "private"], headers: auth)
        #expect(invalid.status == 422)
        #expect(invalid.json?["errors"]?.array?.first?["pointer"]?.string == "/type")
    }

    @Test func auditPages() throws {
        let app = try TestApp()
        let auth: Headers = ["Authorization": "Bearer " + (try app.token(name: "robot"))]
        let id = try #require(app.send("POST", "\(Self.base)/environments", json: ["name": "P", "kind": "production"], headers: auth).json?["id"]?.string)
        for i in 0..<5 { app.send("PATCH", "\(Self.base)/environments/\(id)", json: ["name": .string("N\(i)")], headers: auth) }
        let page1 = app.send("GET", "\(Self.base)/audit?environmentId=\(id)&limit=4", headers: auth)
        let entries = try #require(page1.json?["entries"]?.array)
        #expect(entries.count == 4)
        #expect(entries[0]["action"]?.string == "environment.update")
        #expect(entries[0]["actor"]?["type"]?.string == "token")
        #expect(entries[0]["actor"]?["name"]?.string == "robot")
        #expect(entries[0]["changes"]?.array?.first?["before"]?.string == "N3")
        #expect(entries[0]["changes"]?.array?.first?["after"]?.string == "N4")
        let cursor = try #require(page1.json?["nextCursor"]?.string)
        let page2 = app.send("GET", "\(Self.base)/audit?environmentId=\(id)&limit=4&cursor=\(cursor)", headers: auth)
        let rest = try #require(page2.json?["entries"]?.array)
        #expect(rest.count == 2)
        #expect(rest.last?["action"]?.string == "environment.create")
        #expect(page2.json?["nextCursor"] == .null)
        #expect(app.send("GET", "\(Self.base)/audit?limit=0", headers: auth).status == 422)
    }

    @Test func operationalEndpoints() throws {
        let app = try TestApp()
        #expect(app.send("GET", "/healthz").status == 200)
        #expect(app.send("GET", "/readyz").text == "ready\n")
        app.send("GET", "/healthz")
        let metrics = app.send("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.text.contains(#"gatehouse_http_requests_total{method="GET",route="/healthz",status="200"} 2"#))
        #expect(metrics.text.contains("gatehouse_database_pending_writes"))
        let headers = app.send("GET", "/healthz").headers
        #expect(headers["X-Frame-Options"] == "DENY")
        #expect(headers["Content-Security-Policy"]?.contains("unsafe-inline") == false)

        let guarded = try TestApp { $0.metrics = "s3cret-metrics-token" }
        #expect(guarded.send("GET", "/metrics").status == 401)
        #expect(guarded.send("GET", "/metrics", headers: ["Authorization": "Bearer s3cret-metrics-token"]).status == 200)
        let off = try TestApp { $0.metrics = "off" }
        #expect(off.send("GET", "/metrics").status == 404)
    }
}
