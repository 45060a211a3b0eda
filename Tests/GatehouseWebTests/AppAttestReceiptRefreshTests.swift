import AttestationTesting
import Crypto
import FakeGoogle
import Foundation
import GatehouseReceipts
import JSON
import Simulator
import Testing
import TestSupport
import TestThreads
import ThrowawayPostgres

/// The receipt refresh end to end (docs/device-api.md "Refresh"): a served gatehouse trading receipts over TLS with the
/// fake Apple, which checks the JWT (ES256, kid, iss, iat, no Bearer) and the body, and answers as told.
@Suite("App Attest receipt refresh", .serialized, .needsSyntheticCA, .needsFakeGoogleTLS)
struct AppAttestReceiptRefreshTests {
    static let appId = AssessFixture.appId
    static let keyID = "ABC123DEFG"
    static let teamID = "ABCDE12345"

    /// A served gatehouse with manual refreshes pointed at a fresh fake Apple, an environment registering the app id
    /// with a DeviceCheck key the fake accepts.
    struct Setup {
        let server: DeviceServer
        let fake: FakeApple
        let environment: String
        let publicKey: String
    }

    static func setup(postgres: Bool = ThrowawayPostgres.endToEnd) throws -> Setup {
        let receipts = try #require(try DeviceServer.ca().receipts)
        let fake = try FakeApple(signerPEM: receipts.signerPEM, signerKeyPEM: receipts.signerKeyPEM, chainPEM: receipts.intermediatePEM)
        let server = try DeviceServer(["--device-rate-per-address", "0", "--app-attest-data-endpoint", fake.baseURL,
                                       "--outbound-ca-file", fake.caFile, "--app-attest-refresh", "manual"], postgres: postgres)
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [appId])
        try setDeviceCheckKey(server, fake, environment)
        return Setup(server: server, fake: fake, environment: environment, publicKey: publicKey)
    }

    /// Stores a new DeviceCheck key in the environment and tells the fake to accept it.
    static func setDeviceCheckKey(_ server: DeviceServer, _ fake: FakeApple, _ environment: String) throws {
        let key = try ECPrivateKey.generate()
        let patch = JSON.object([.init("appAttest", .object([.init("deviceCheckKey", .object([
            .init("keyId", .string(keyID)), .init("teamId", .string(teamID)), .init("privateKey", .string(key.pkcs8PEM))]))]))])
        let response = try server.client.send("PATCH", "/api/management/v1/environments/\(environment)",
                                              headers: [("Authorization", "Bearer " + server.token), ("Content-Type", "application/json")],
                                              body: patch.serialized())
        #expect(response.status == 200, "\(response.text)")
        let spki = Base64.encode(key.publicKey.derSubjectPublicKeyInfo)
        try fake.configure(keyID: keyID, teamID: teamID, publicKeyPEM: "-----BEGIN PUBLIC KEY-----\n\(spki)\n-----END PUBLIC KEY-----\n")
    }

    static func refresh(_ server: DeviceServer, _ environment: String) throws -> JSON {
        let response = try server.client.send("POST", "/api/management/v1/environments/\(environment)/app-attest/refresh-receipts",
                                              headers: [("Authorization", "Bearer " + server.token)])
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json)
    }

    static func tally(tried: Int, refreshed: Int = 0, unchanged: Int = 0, noData: Int = 0, refused: Int = 0, failed: Int = 0) -> JSON {
        .object([.init("tried", .int(Int64(tried))), .init("refreshed", .int(Int64(refreshed))), .init("unchanged", .int(Int64(unchanged))),
                 .init("noData", .int(Int64(noData))), .init("refused", .int(Int64(refused))), .init("failed", .int(Int64(failed)))])
    }

    @Test func aPassTradesTheReceiptAndItsMetricReachesAssertionsAndReceipts() throws {
        let setup = try Self.setup()
        let (server, fake) = (setup.server, setup.fake)
        let key = try server.registeredKey(publicKey: setup.publicKey)
        // A key that has not asserted is not active: nothing is sent.
        #expect(try Self.refresh(server, setup.environment) == Self.tally(tried: 0))
        #expect(try server.assert(key, counter: 1, publicKey: setup.publicKey).verdict == "verified")

        try fake.answer([["status": 200, "riskMetric": 7]])
        #expect(try Self.refresh(server, setup.environment) == Self.tally(tried: 1, refreshed: 1))
        let sent = try fake.refreshes()
        #expect(sent.count == 1)
        #expect(sent.first?["status"] as? Int == 200)
        #expect(sent.first?["keyIdHex"] as? String == Hex.encode(key.keyId), "the attestation's receipt, for this key")
        #expect(sent.first?["receiptType"] as? String == "ATTEST")
        let authorization = (sent.first?["headers"] as? [String: String])?["authorization"] ?? ""
        #expect(!authorization.isEmpty && !authorization.hasPrefix("Bearer"))

        // The next assertion observes the metric; an assessment's receipt carries it.
        let asserted = try server.assert(key, counter: 2, publicKey: setup.publicKey)
        #expect(asserted.verdict == "verified")
        #expect(asserted.json?["verdict"]?["observed"]?["riskMetric"]?.integer == 7, "\(asserted.text)")
        #expect(asserted.json?["verdict"]?["observed"]?["riskMetricAt"]?.string != nil)
        let assessed = try server.assess(try AssessFixture.withAssertion(try AssessFixture.ios(setup.publicKey), key: key, counter: 3))
        let token = try #require(assessed.json?["sessionToken"]?.string)
        let payload = try JSONParser.parse(try #require(Base64.decode(String(token.split(separator: ".")[1]))))
        #expect(payload["att"]?["risk"]?.integer == 7, "\(payload.text)")
        #expect(try ReceiptClaims(payload: payload.serialized()).attestation?.risk == 7)

        // 304 and 404 keep the receipt: the stored one is now Apple's RECEIPT, sent again each time.
        try fake.answer([["status": 304], ["status": 404]])
        #expect(try Self.refresh(server, setup.environment) == Self.tally(tried: 1, unchanged: 1))
        #expect(try Self.refresh(server, setup.environment) == Self.tally(tried: 1, noData: 1))
        #expect(try fake.refreshes().dropFirst().map { $0["receiptType"] as? String } == ["RECEIPT", "RECEIPT"])
        #expect(try server.assert(key, counter: 4, publicKey: setup.publicKey).json?["verdict"]?["observed"]?["riskMetric"]?.integer == 7)

        // The policy's bound: above it, assertions are rejected.
        let bound = try server.client.send("PATCH", "/api/management/v1/environments/\(setup.environment)",
                                           headers: [("Authorization", "Bearer " + server.token), ("Content-Type", "application/json")],
                                           body: Array(#"{"appAttest": {"riskMetricAbove": 5}}"#.utf8))
        #expect(bound.status == 200)
        #expect(try server.assert(key, counter: 5, publicKey: setup.publicKey).verdict == "rejected riskMetricHigh")

        let metrics = try server.client.send("GET", "/metrics").text
        #expect(metrics.contains(#"gatehouse_app_attest_receipt_refresh_total{result="refreshed"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"gatehouse_app_attest_receipt_refresh_total{result="unchanged"} 1"#))
    }

    @Test func aRefusedKeyFailsTheChecklistAndStopsRefreshesUntilItChanges() throws {
        let setup = try Self.setup()
        let (server, fake) = (setup.server, setup.fake)
        let key = try server.registeredKey(publicKey: setup.publicKey)
        #expect(try server.assert(key, counter: 1, publicKey: setup.publicKey).verdict == "verified")

        try fake.answer([["status": 401]])
        #expect(try Self.refresh(server, setup.environment) == Self.tally(tried: 1, refused: 1))
        let item = try #require(try server.checklistItem(setup.environment, "appAttest.deviceCheckKey"))
        #expect(item["status"]?.string == "fail")
        #expect(item["detail"]?.string?.contains("key \(Self.keyID) of team \(Self.teamID) (401)") == true, "\(item)")
        // Stopped: nothing is sent while the key is the refused one.
        #expect(try Self.refresh(server, setup.environment) == Self.tally(tried: 0))
        #expect(try fake.refreshes().count == 1)

        // A new key: refreshes resume, the item passes.
        try Self.setDeviceCheckKey(server, fake, setup.environment)
        #expect(try Self.refresh(server, setup.environment) == Self.tally(tried: 1, refreshed: 1))
        #expect(try server.checklistItem(setup.environment, "appAttest.deviceCheckKey")?["status"]?.string == "ok")

        // 429 and 5xx fail the key's try (and back it off: see ReceiptRefreshScheduleTests); the receipt stays.
        try fake.answer([["status": 429], ["status": 503]])
        #expect(try Self.refresh(server, setup.environment) == Self.tally(tried: 1, failed: 1))
        #expect(try Self.refresh(server, setup.environment) == Self.tally(tried: 1, failed: 1))
        #expect(try fake.refreshes().suffix(2).map { $0["receiptType"] as? String } == ["RECEIPT", "RECEIPT"])
    }

    @Test(.enabled(if: !ThrowawayPostgres.endToEnd, "on PostgreSQL in every pass already"))
    func twoServersOnPostgreSQLRefreshEachKeyOnce() throws {
        let setup = try Self.setup(postgres: true)
        let second = try DeviceServer(sharing: setup.server, ["--device-rate-per-address", "0", "--app-attest-data-endpoint", setup.fake.baseURL,
                                                              "--outbound-ca-file", setup.fake.caFile, "--app-attest-refresh", "manual"])
        var keys: [SyntheticKey] = []
        for _ in 0..<6 {
            let key = try setup.server.registeredKey(publicKey: setup.publicKey)
            #expect(try setup.server.assert(key, counter: 1, publicKey: setup.publicKey).verdict == "verified")
            keys.append(key)
        }
        // Apple holds every answer until all six calls are in flight: the two servers' passes overlap whole, and
        // between them claim each key once (a key another pass holds is skipped).
        try setup.fake.answer((0..<6).map { _ in ["status": 200, "riskMetric": 2, "hold": true] })
        let clients = [setup.server.client, second.client]
        let path = "/api/management/v1/environments/\(setup.environment)/app-attest/refresh-receipts"
        let authorization = [("Authorization", "Bearer " + setup.server.token)]
        let fake = setup.fake
        let releaser = Thread {
            _ = try? waitUntil(seconds: 30) { try fake.held() >= 6 }
            try? fake.release()
        }
        releaser.start()
        let tallies = concurrently(2) { i in (try? clients[i].send("POST", path, headers: authorization).json) ?? .null }
        #expect(try fake.held() == 6, "all six calls were in flight at once")
        // Each key is refreshed once between the two servers. Under a loaded machine a server's held calls may pass
        // the refresher's 15-second bound before the other server's pass starts: those tries fail (they free the key)
        // and the other pass trades those keys instead; each is still stored once.
        let refreshed = tallies.map { Int($0["refreshed"]?.integer ?? -100) }
        let failed = tallies.map { Int($0["failed"]?.integer ?? -100) }
        #expect(refreshed.reduce(0, +) == 6, "\(tallies)")
        let records = try setup.fake.refreshes()
        let sent = records.compactMap { $0["keyIdHex"] as? String }
        #expect(sent.count == 6 + failed.reduce(0, +), "\(tallies) \(records.map { "\($0["keyIdHex"] as? String ?? "?") \($0["status"] as? Int ?? 0)" })")
        #expect(Set(sent) == Set(keys.map { Hex.encode($0.keyId) }), "each key once")
    }
}
