import Crypto
import Foundation
import Gatehouse
import GatehouseReceipts
import GatehouseTesting
import JSON
import Simulator
import Testing
import ThrowawayPostgres

/// Debug tokens over a loopback socket (docs/device-api.md "Debug tokens"): the management endpoints, the debug provider
/// of `/api/v4/assess` under attack mode, expiry on the test clock, the last-used time, where the value never goes,
/// traffic and the checklist.
@Suite("Debug tokens")
struct DebugTokensAPITests {
    typealias Fixture = DebugTokensFixture

    @Test func createdOnceWithThirtyDaysAndListedWithoutItsValue() throws {
        let fixture = try Fixture()
        let created = try fixture.create(["name": "CI simulator"])
        #expect(created.status == 201, "\(created.text)")
        let body = try #require(created.json)
        let value = try #require(body["token"]?.string)
        #expect(value.hasPrefix("dt_"))
        let random = try #require(Base64.decodeURLSafeUnpadded(Array(value.utf8.dropFirst(3))))
        #expect(random.count == 32 && value.count == 46)
        #expect(body["id"]?.string?.hasPrefix("dbg_") == true)
        #expect(body["name"]?.string == "CI simulator")
        #expect(body["createdAt"]?.string == Timestamp.format(fixture.app.clock.now))
        #expect(body["expiresAt"]?.string == Timestamp.format(fixture.app.clock.now + 30 * 86_400))
        #expect(body["lastUsedAt"]?.isNull == true)
        #expect(created.header("Location") == "\(fixture.base)/\(body["id"]?.string ?? "")")
        let items = try fixture.list()
        #expect(items.count == 1)
        #expect(items.first?["id"] == body["id"] && items.first?["token"] == nil)
        let listed = try fixture.client.send("GET", fixture.base, headers: [("Authorization", "Bearer " + fixture.readToken)])
        #expect(!listed.text.contains(value))
        // A second token is another value.
        #expect(try fixture.token("QA emulator").value != value)
    }

    @Test func badInputIsRefusedByPointerAndReadTokensCannotCreate() throws {
        let fixture = try Fixture()
        let now = fixture.app.clock.now
        func pointers(_ body: JSON) throws -> (Int, [String]) {
            let response = try fixture.create(body)
            return (response.status, response.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } ?? [])
        }
        #expect(try pointers(["name": "CI", "expiresAt": .string(Timestamp.format(now - 1))]) == (422, ["/expiresAt"]))
        #expect(try pointers(["name": "CI", "expiresAt": .string(Timestamp.format(now))]) == (422, ["/expiresAt"]))
        #expect(try pointers(["name": "CI", "expiresAt": .string(Timestamp.format(now + 365 * 86_400 + 1))]) == (422, ["/expiresAt"]))
        #expect(try pointers(["name": "CI", "expiresAt": "next week"]) == (422, ["/expiresAt"]))
        #expect(try pointers(["name": ""]) == (422, ["/name"]))
        #expect(try pointers(["name": "   "]) == (422, ["/name"]))
        #expect(try pointers(["name": .string(String(repeating: "x", count: 101))]) == (422, ["/name"]))
        #expect(try pointers([:]) == (422, ["/name"]))
        #expect(try pointers(["name": "CI", "scope": "all"]) == (422, ["/scope"]))
        #expect(try fixture.create(["name": "CI"], token: fixture.readToken).status == 403)
        #expect(try fixture.create(["name": "CI"], environment: "env_aaaaaaaaaaaaaaaa").status == 404)
        // 365 days exactly is the most.
        #expect(try fixture.create(["name": "CI", "expiresAt": .string(Timestamp.format(now + 365 * 86_400))]).status == 201)
        #expect(try fixture.list().count == 1)
    }

    @Test func theTwentyFirstActiveTokenIsAConflictButRevokedAndExpiredOnesDoNotCount() throws {
        let fixture = try Fixture()
        var ids: [String] = []
        for i in 0..<19 { ids.append(try fixture.token("CI \(i)").id) }
        let shortLived = try fixture.token("one day", days: 1)
        let refused = try fixture.create(["name": "21st"])
        #expect(refused.status == 409, "\(refused.text)")
        #expect(refused.json?["detail"]?.string?.contains("20 active debug tokens") == true)
        #expect(try fixture.revoke(ids[0]).status == 204)
        #expect(try fixture.revoke(ids[0]).status == 409)
        #expect(try fixture.revoke("dbg_aaaaaaaaaaaaaaaa").status == 404)
        _ = try fixture.token("after a revocation")
        #expect(try fixture.create(["name": "21st again"]).status == 409)
        fixture.app.clock.advance(by: 86_400)  // the one-day token expires
        _ = try fixture.token("after an expiry")
        #expect(try fixture.create(["name": "21st once more"]).status == 409)
        #expect(try fixture.list().count == 22)
        _ = shortLived
    }

    @Test(arguments: ["ios", "android"])
    func aLiveTokenIsVerifiedAndProvenUnderAttackModeOnEitherPlatform(platform: String) throws {
        let fixture = try Fixture()
        // Without proof, attack mode challenges this platform: the environment checks it.
        let unproven = try fixture.assess(platform: platform, debugToken: nil)
        #expect(unproven.json?["attackMode"]?.string == "unproven", "\(unproven.text)")
        #expect(try fixture.receipt(unproven).action == .challenge)

        let token = try fixture.token("CI \(platform)")
        let response = try fixture.assess(platform: platform, debugToken: token.value)
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json?["attestation"]?["provider"]?.string == "debug")
        #expect(response.assessed == "verified", "\(response.text)")
        #expect(response.json?["attackMode"]?.string == "proven")
        #expect(response.tampering.isEmpty)
        let claims = try fixture.receipt(response)
        #expect(claims.attestation == ReceiptAttestation(provider: "debug", status: "verified"))
        #expect(claims.action == .allow)
        #expect(claims.platform == platform)
    }

    /// A debug token is a bearer credential, not proof of a genuine install: a backend's policy asking for a
    /// verified attestation refuses its receipt (`unattested`) unless it also says `"debug": true`.
    @Test func aDebugReceiptMeetsAVerifiedAttestationPolicyOnlyWhenItAllowsDebug() throws {
        let fixture = try Fixture()
        let token = try fixture.token("Leaked from a CI log")
        let assessed = try fixture.assess(platform: "ios", debugToken: token.value)
        let receipt = try #require(assessed.json?["sessionToken"]?.string)
        func verify(_ require: JSON) throws -> JSON? {
            let body: JSON = ["token": .string(receipt), "method": "GET", "pathAndQuery": "/orders", "require": require]
            let response = try fixture.client.send("POST", "/api/v4/receipts/verify", headers: [("Authorization", "Bearer " + fixture.secretKey),
                                                   ("Content-Type", "application/json")], body: body.serialized())
            #expect(response.status == 200, "\(response.text)")
            return response.json
        }
        let strict = try verify(["attestation": "verified"])
        #expect(strict?["valid"] == false, "\(String(describing: strict))")
        #expect(strict?["reasons"] == ["unattested"])
        #expect(try verify(["attestation": "verified", "debug": false])?["reasons"] == ["unattested"])
        let allowing = try verify(["attestation": "verified", "debug": true])
        #expect(allowing?["valid"] == true, "\(String(describing: allowing))")
        #expect(try verify([:])?["valid"] == true)
        // Anything but a boolean is named.
        let body: JSON = ["token": .string(receipt), "method": "GET", "pathAndQuery": "/orders", "require": ["debug": "yes"]]
        let bad = try fixture.client.send("POST", "/api/v4/receipts/verify", headers: [("Authorization", "Bearer " + fixture.secretKey),
                                          ("Content-Type", "application/json")], body: body.serialized())
        #expect(bad.status == 400 && bad.text.contains("/require/debug"), "\(bad.text)")
    }

    @Test func unknownRevokedExpiredAndOtherEnvironmentsTokensAreForged() throws {
        let fixture = try Fixture()
        let (otherID, otherKey, _) = try Fixture.environment(fixture.client, token: fixture.writeToken, name: "Other", kind: "production")
        let other = try fixture.token("other's", environment: otherID)
        let revoked = try fixture.token("revoked")
        #expect(try fixture.revoke(revoked.id).status == 204)
        let expiring = try fixture.token("expiring", days: 1)
        let unknown = "dt_" + Base64.encode(Array(repeating: 7, count: 32), alphabet: .urlSafe, padded: false)

        #expect(try fixture.assess(platform: "ios", debugToken: expiring.value).assessed == "verified")
        fixture.app.clock.advance(by: 86_400)  // its expiry: refused from this second on
        for value in [unknown, revoked.value, expiring.value, other.value, "not-a-debug-token"] {
            let response = try fixture.assess(platform: "ios", debugToken: value)
            #expect(response.assessed == "forged debugTokenInvalid", "\(response.text)")
            #expect(response.json?["attestation"]?["provider"]?.string == "debug")
            #expect(response.json?["attackMode"]?.string == "unproven")
            let claims = try fixture.receipt(response)
            #expect(claims.attestation == ReceiptAttestation(provider: "debug", status: "forged"))
            #expect(claims.action == .challenge)
        }
        // The other environment's token is live there.
        #expect(try fixture.assess(platform: "android", debugToken: other.value, publicKey: otherKey).assessed == "verified")
    }

    @Test func revocationRefusesTheTokenAtOnce() throws {
        let fixture = try Fixture()
        let token = try fixture.token("CI")
        #expect(try fixture.assess(platform: "ios", debugToken: token.value).assessed == "verified")  // cached now
        #expect(try fixture.revoke(token.id).status == 204)
        #expect(try fixture.assess(platform: "ios", debugToken: token.value).assessed == "forged debugTokenInvalid")
    }

    @Test func lastUsedIsWrittenAtTheFirstUseThenAtMostOnceAMinute() throws {
        let fixture = try Fixture()
        let token = try fixture.token("CI")
        func lastUsed() throws -> String? { try fixture.list().first { $0["id"]?.string == token.id }?["lastUsedAt"]?.string }
        #expect(try lastUsed() == nil)
        let first = fixture.app.clock.now
        #expect(try fixture.assess(platform: "ios", debugToken: token.value).assessed == "verified")
        #expect(try lastUsed() == Timestamp.format(first))
        fixture.app.clock.advance(by: 59)
        #expect(try fixture.assess(platform: "android", debugToken: token.value).assessed == "verified")
        #expect(try lastUsed() == Timestamp.format(first))
        fixture.app.clock.advance(by: 1)
        #expect(try fixture.assess(platform: "ios", debugToken: token.value).assessed == "verified")
        #expect(try lastUsed() == Timestamp.format(first + 60))
        // A refused use is not a use.
        #expect(try fixture.revoke(token.id).status == 204)
        fixture.app.clock.advance(by: 120)
        #expect(try fixture.assess(platform: "ios", debugToken: token.value).assessed == "forged debugTokenInvalid")
        #expect(try lastUsed() == Timestamp.format(first + 60))
    }

    @Test func theValueIsInNoLogLineAuditEntryMetricOrDatabaseByte() throws {
        let fixture = try Fixture()
        let token = try fixture.token("CI simulator")
        #expect(try fixture.assess(platform: "ios", debugToken: token.value).assessed == "verified")
        #expect(try fixture.revoke(token.id).status == 204)
        #expect(try fixture.assess(platform: "android", debugToken: token.value).assessed == "forged debugTokenInvalid")
        _ = fixture.app.application.domain.recorder.flush()

        let audit = try fixture.client.send("GET", "/api/management/v1/audit?environmentId=\(fixture.environmentID)",
                                            headers: [("Authorization", "Bearer " + fixture.readToken)])
        let actions = audit.json?["entries"]?.array?.compactMap { $0["action"]?.string } ?? []
        #expect(actions.contains("debugToken.create") && actions.contains("debugToken.revoke"), "\(actions)")
        #expect(audit.text.contains(token.id) && audit.text.contains("CI simulator"))
        let metrics = try fixture.client.send("GET", "/metrics")
        #expect(metrics.status == 200)
        let secret = token.value, randomPart = String(secret.dropFirst(3))
        for (place, text) in [("audit", audit.text), ("metrics", metrics.text), ("log", fixture.app.logLines.all.joined(separator: "\n"))] {
            #expect(!text.contains(randomPart), "the token is in the \(place)")
        }
        // Every byte the database holds (the SQLite file and its write-ahead log; the PostgreSQL pass has no file).
        guard !ThrowawayPostgres.endToEnd else { return }
        let database = fixture.app.directory + "/gatehouse.sqlite"
        let stored = [database, database + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
        #expect(stored.range(of: Data(token.id.utf8)) != nil, "the check reads where the token's row is")
        #expect(stored.range(of: Data(randomPart.utf8)) == nil, "the token is in the database")
        #expect(stored.range(of: Data(RandomToken.hash(secret))) != nil, "only its hash is kept")
    }

    @Test func debugVerdictsAreTrafficOfTheirOwnProvider() throws {
        let fixture = try Fixture()
        let token = try fixture.token("CI")
        for platform in ["ios", "android", "ios"] {
            #expect(try fixture.assess(platform: platform, debugToken: token.value).assessed == "verified")
        }
        #expect(try fixture.assess(platform: "ios", debugToken: "dt_unknown").assessed == "forged debugTokenInvalid")
        #expect(fixture.app.application.domain.recorder.flush() == 4)
        let verdicts = fixture.app.application.domain.verdicts
        let daily = try verdicts.dailyCounts(environmentID: fixture.environmentID, now: fixture.app.clock.now)
        let today = try #require(daily.last)
        #expect(today.providers == ["debug": 4])
        #expect(today.counts == ["verified": 3, "forged": 1])
        let rollups = try verdicts.weekRollups(environmentID: fixture.environmentID, now: fixture.app.clock.now)
        #expect(Set(rollups.map(\.provider)) == ["debug"])
        // The checklist counts none of them as App Attest or Play Integrity.
        let items = try #require(try fixture.client.send("GET", "/api/management/v1/environments/\(fixture.environmentID)/checklist",
                                                         headers: [("Authorization", "Bearer " + fixture.readToken)]).json?["items"]?.array)
        for item in items where item["evidence"]?["provider"]?.string == "app-attest" || item["evidence"]?["provider"]?.string == "play-integrity" {
            #expect((item["evidence"]?["verdicts"]?.integer ?? 0) == 0, "\(item)")
        }
    }

    @Test func aProductionEnvironmentWithAnActiveTokenWarnsInItsChecklist() throws {
        let fixture = try Fixture()
        func item() throws -> JSON {
            let report = try fixture.client.send("GET", "/api/management/v1/environments/\(fixture.environmentID)/checklist",
                                                 headers: [("Authorization", "Bearer " + fixture.readToken)])
            return try #require(report.json?["items"]?.array?.first { $0["id"]?.string == "debugTokens.production" })
        }
        #expect(try item()["status"]?.string == "ok")
        let token = try fixture.token("CI simulator")
        let warned = try item()
        #expect(warned["status"]?.string == "warn")
        #expect(warned["detail"]?.string?.contains("CI simulator") == true, "\(warned)")
        #expect(try fixture.revoke(token.id).status == 204)
        #expect(try item()["status"]?.string == "ok")
        let expiring = try fixture.token("one day", days: 1)
        #expect(try item()["status"]?.string == "warn")
        fixture.app.clock.advance(by: 86_400)
        #expect(try item()["status"]?.string == "ok")
        _ = expiring

        let development = try Fixture(kind: "development")
        _ = try development.token("CI simulator")
        let report = try development.client.send("GET", "/api/management/v1/environments/\(development.environmentID)/checklist",
                                                 headers: [("Authorization", "Bearer " + development.readToken)])
        #expect(report.json?["items"]?.array?.first { $0["id"]?.string == "debugTokens.production" }?["status"]?.string == "ok")
    }
}
