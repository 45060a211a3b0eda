import Attestation
import AttestationTesting
import Crypto
import Foundation
import JSON
import SQLite
import Storage
import TestThreads
import Testing
import ThrowawayPostgres
import PostgreSQL

/// The App Attest endpoints over a real socket, against a `gatehouse serve` that trusts a synthetic root: the
/// ceremony of docs/device-api.md, state that survives a SIGKILL, concurrency, and the verdicts in traffic.
@Suite("App Attest device API", .serialized, .needsSyntheticCA)
struct AppAttestAPITests {
    static let appId = "ABCDE12345.com.example.app"

    @Test func registrationThenAssertionsInOrderOutOfOrderReusedAndRegressed() throws {
        let server = try DeviceServer()
        let (_, publicKey) = try server.environment(kind: "production", appIds: [Self.appId])
        let challenge = try server.challenge(publicKey)
        #expect(challenge.utf8.count == 43 && Base64.decode(challenge)?.count == 32)
        let key = try DeviceServer.ca().attest(appId: Self.appId, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        let registered = try server.register(key, publicKey: publicKey, challenge: challenge)
        #expect(registered.status == 200)
        #expect(registered.verdict == "verified")
        #expect(registered.json?["appId"]?.string == Self.appId)
        #expect(registered.json?["attestationEnvironment"]?.string == "production")
        #expect(registered.json?["keyId"]?.string == Base64.encode(key.keyId))

        // The challenge was spent; the key cannot register twice.
        #expect(try server.register(key, publicKey: publicKey, challenge: challenge).verdict == "rejected challengeInvalid")
        let again = try server.challenge(publicKey)
        let sameKey = try server.register(key, publicKey: publicKey, challenge: again)
        #expect(sameKey.verdict == "forged nonceMismatch", "an attestation answers the challenge it was made for: \(sameKey.text)")

        let judged = try [1, 2, 5, 3, 4, 3, 5, 40, 9, 8].map { counter in try server.assert(key, counter: UInt32(counter), publicKey: publicKey).verdict }
        #expect(judged == [
            "verified", "verified", "verified",
            "verified", "verified",                  // 3 and 4: below the newest (5), not seen: out of order, fine
            "forged counterReused", "forged counterReused",
            "verified",                              // 40 becomes the newest
            "verified",                              // 9: 31 below 40, inside the window
            "rejected counterRegression",            // 8: 32 below 40
        ])
        let counted = try server.assert(key, counter: 41, publicKey: publicKey)
        #expect(counted.json?["counter"]?.integer == 41)

        // A corrupted signature spends nothing: the counter stays usable.
        var corrupted = try key.assertion(counter: 50, clientData: Array("x".utf8))
        corrupted[corrupted.count / 2] ^= 0x55
        let forged = try server.post("/app-attest/assertion", ["apiKey": .string(publicKey), "keyId": .string(Base64.encode(key.keyId)),
                                                              "clientData": .string(Base64.encode(Array("x".utf8))), "assertion": .string(Base64.encode(corrupted))])
        #expect(forged.status == 200)
        #expect(forged.verdict.hasPrefix("forged"), "\(forged.text)")
        #expect(try server.assert(key, counter: 50, publicKey: publicKey).verdict == "verified")
        // Signed over other client data than the request carries.
        let other = try key.assertion(counter: 51, clientData: Array("POST /pay".utf8))
        let mismatched = try server.post("/app-attest/assertion", ["apiKey": .string(publicKey), "keyId": .string(Base64.encode(key.keyId)),
                                                                  "clientData": .string(Base64.encode(Array("GET /".utf8))), "assertion": .string(Base64.encode(other))])
        #expect(mismatched.verdict == "forged assertionInvalid")

        // Unknown and missing key ids.
        let stranger = try DeviceServer.ca().attest(appId: Self.appId, clientDataHash: SHA256.hash(Array("never registered".utf8)))
        #expect(try server.assert(stranger, counter: 1, publicKey: publicKey).verdict == "forged unknownKeyId")
        let missing = try server.post("/app-attest/assertion", ["apiKey": .string(publicKey), "clientData": .string(Base64.encode([1])),
                                                               "assertion": .string(Base64.encode(corrupted))])
        #expect(missing.verdict == "forged missingKeyId")
        // A key of this environment is unknown to another one.
        let (_, otherKey) = try server.environment(kind: "production", appIds: [Self.appId])
        #expect(try server.assert(key, counter: 60, publicKey: otherKey).verdict == "forged unknownKeyId")
    }

    @Test func setupFaultsAreJudgedAndReachTheChecklist() throws {
        let server = try DeviceServer()
        let (production, productionKey) = try server.environment(kind: "production", appIds: [Self.appId])
        let (_, bareKey) = try server.environment(kind: "production", appIds: [])
        let (development, developmentKey) = try server.environment(kind: "development", appIds: [Self.appId])

        // A development key in production: rejected and not stored.
        let (devKey, devResponse) = try server.attestAndRegister(appId: Self.appId, publicKey: productionKey, environment: .development)
        #expect(devResponse.verdict == "rejected developmentKey")
        #expect(devResponse.json?["attestationEnvironment"]?.string == "development")
        #expect(try server.assert(devKey, counter: 1, publicKey: productionKey).verdict == "forged unknownKeyId")
        // The same kind of key is welcome in a development environment.
        let (devKey2, welcomed) = try server.attestAndRegister(appId: Self.appId, publicKey: developmentKey, environment: .development)
        #expect(welcomed.verdict == "verified")
        #expect(try server.assert(devKey2, counter: 1, publicKey: developmentKey).verdict == "verified")

        // An app id this environment did not register.
        let (_, unregistered) = try server.attestAndRegister(appId: "ZYXWV98765.com.other.app", publicKey: productionKey)
        #expect(unregistered.verdict == "rejected appIdNotRegistered")
        // The answer names the app id Apple certified on the key, so an admin learns what to register.
        #expect(unregistered.json?["appId"]?.string == "ZYXWV98765.com.other.app")
        // An environment with no app id at all.
        let (_, bare) = try server.attestAndRegister(appId: Self.appId, publicKey: bareKey)
        #expect(bare.verdict.hasPrefix("unavailable notConfigured"), "\(bare.text)")

        // More of the same, so the checklist's thresholds (20 failing verdicts) are passed.
        for _ in 0..<24 {
            let challenge = try server.challenge(productionKey)
            let other = try DeviceServer.ca().attest(appId: "ZYXWV98765.com.other.app", clientDataHash: SHA256.hash(Array(challenge.utf8)))
            #expect(try server.register(other, publicKey: productionKey, challenge: challenge).verdict == "rejected appIdNotRegistered")
        }
        // SIGTERM writes the verdicts still queued; the checklist after a restart reads them from the rollups.
        try server.restart(after: SIGTERM)
        let items = try server.checklist(production)["items"]?.array ?? []
        let notRegistered = try #require(items.first { $0["id"]?.string == "apple.appIdNotRegistered" })
        #expect(notRegistered["evidence"]?["failing"]?.integer == 25)
        #expect(notRegistered["status"]?.string == "fail")
        // The app id Apple certified on the leaf is what the checklist names; its bundle id is none of the registered
        // ones, so the fix does not tell the admin to register it (anyone's developer account can attest its app).
        #expect(notRegistered["evidence"]?["observed"]?.array?.first?["value"]?.string == "ZYXWV98765.com.other.app")
        #expect(notRegistered["fix"]?.string?.contains("If com.other.app is an app of yours") == true, "\(notRegistered)")
        let devItem = try #require(items.first { $0["id"]?.string == "apple.developmentKey" })
        #expect(devItem["evidence"]?["failing"]?.integer == 1)
        let devItems = try server.checklist(development)["items"]?.array ?? []
        #expect(devItems.first { $0["id"]?.string == "apple.developmentKey" }?["evidence"]?["verdicts"]?.integer == 2)
    }

    @Test func concurrentAssertionsWithOneCounterVerifyOnce() throws {
        let server = try DeviceServer()
        let (_, publicKey) = try server.environment(kind: "production", appIds: [Self.appId])
        let (key, registered) = try server.attestAndRegister(appId: Self.appId, publicKey: publicKey)
        #expect(registered.verdict == "verified")
        let assertion = try key.assertion(counter: 7, clientData: [1, 2, 3])
        let body = JSON.object([.init("apiKey", .string(publicKey)), .init("keyId", .string(Base64.encode(key.keyId))),
                                .init("clientData", .string(Base64.encode([1, 2, 3]))), .init("assertion", .string(Base64.encode(assertion)))]).serialized()
        let client = server.client
        let json = [("Content-Type", "application/json")]
        let verdicts = concurrently(20) { _ in (try? client.send("POST", "/api/v4/attestation/app-attest/assertion", headers: json, body: body))?.verdict ?? "failed" }
        #expect(verdicts.filter { $0 == "verified" }.count == 1, "\(verdicts)")
        #expect(verdicts.filter { $0 == "forged counterReused" }.count == 19, "\(verdicts)")

        // Ten keys attested over one challenge: one registers, nine find it spent.
        let challenge = try server.challenge(publicKey)
        let keys = try (0..<10).map { _ in try DeviceServer.ca().attest(appId: Self.appId, clientDataHash: SHA256.hash(Array(challenge.utf8))) }
        let bodies = keys.map { key in
            JSON.object([.init("apiKey", .string(publicKey)), .init("keyId", .string(Base64.encode(key.keyId))), .init("challenge", .string(challenge)),
                         .init("attestation", .string(Base64.encode(key.attestation)))]).serialized()
        }
        let registrations = concurrently(10) { i in (try? client.send("POST", "/api/v4/attestation/app-attest", headers: json, body: bodies[i]))?.verdict ?? "failed" }
        #expect(registrations.filter { $0 == "verified" }.count == 1, "\(registrations)")
        #expect(registrations.filter { $0 == "rejected challengeInvalid" }.count == 9, "\(registrations)")
    }

    @Test func aCounterVerifiedBeforeASigkillIsReusedAfterIt() throws {
        let server = try DeviceServer()
        let (_, publicKey) = try server.environment(kind: "production", appIds: [Self.appId])
        let (key, registered) = try server.attestAndRegister(appId: Self.appId, publicKey: publicKey)
        #expect(registered.verdict == "verified")
        #expect(try server.assert(key, counter: 7, publicKey: publicKey).verdict == "verified")
        try server.restart(after: SIGKILL)
        #expect(try server.assert(key, counter: 7, publicKey: publicKey).verdict == "forged counterReused")
        #expect(try server.assert(key, counter: 6, publicKey: publicKey).verdict == "verified")
    }

    /// The server keeps keys it judged in memory; a window another server moved in the shared database is what
    /// counters are judged against all the same (so a counter spent there is not verified here).
    @Test func aWindowMovedByAnotherServerIsHonoured() throws {
        let server = try DeviceServer()
        let (_, publicKey) = try server.environment(kind: "production", appIds: [Self.appId])
        let (key, registered) = try server.attestAndRegister(appId: Self.appId, publicKey: publicKey)
        #expect(registered.verdict == "verified")
        #expect(try (1...3).map { try server.assert(key, counter: $0, publicKey: publicKey).verdict } == ["verified", "verified", "verified"])
        // Another server: a connection of its own to the same database.
        let elsewhere: any SQLDatabase = ThrowawayPostgres.endToEnd
            ? try PostgresDatabase(PostgresDatabase.Configuration(url: server.database)) : SQLiteEngine(try Database(path: server.database))
        func move(newest: Int64) throws {
            _ = try elsewhere.write { db in
                try db.execute("UPDATE attested_keys SET counter_newest = ?, counter_seen = 0 WHERE key_id = ?", [.integer(newest), .blob(key.keyId)])
            }
        }
        try move(newest: 10)
        #expect(try server.assert(key, counter: 10, publicKey: publicKey).verdict == "forged counterReused")
        #expect(try server.assert(key, counter: 11, publicKey: publicKey).verdict == "verified")
        try move(newest: 100)
        #expect(try server.assert(key, counter: 50, publicKey: publicKey).verdict == "rejected counterRegression")
        #expect(try server.assert(key, counter: 100, publicKey: publicKey).verdict == "forged counterReused")
        #expect(try server.assert(key, counter: 99, publicKey: publicKey).verdict == "verified")
    }
}
