import TestSupport
import Attestation
import AttestationTesting
import Crypto
import Foundation
import JSON
import Testing

/// The App Attest policy through HTTP (docs/device-api.md "Launch validation and bundle version"): categories accepted
/// and refused, required and missing (an object of iOS 26), bundle versions compared as numbers, the observed values
/// in the answers, the checklist item of a production environment, and the policy's bad input by pointer.
@Suite(.serialized) struct AppAttestPolicyTests {
    static let appId = "ABCDE12345.com.example.policy"

    /// Registers a key whose authenticator data carries `category` and `version` (none: an iOS 26 object).
    static func register(_ server: DeviceServer, publicKey: String, category: UInt32?, version: String?) throws -> (SyntheticKey, JSON) {
        let challenge = try server.challenge(publicKey)
        var tweaks = SyntheticAppAttest.Tweaks()
        tweaks.authDataExtension = SyntheticAppAttest.extensions(validationCategory: category, bundleVersion: version)
        let key = try DeviceServer.ca().attest(appId: appId, clientDataHash: SHA256.hash(Array(challenge.utf8)), tweaks: tweaks)
        let response = try server.register(key, publicKey: publicKey, challenge: challenge)
        #expect(response.status == 200, "\(response.text)")
        return (key, try #require(response.json))
    }

    static func assert(_ server: DeviceServer, _ key: SyntheticKey, counter: UInt32, publicKey: String, category: UInt32?, version: String?) throws -> JSON {
        let clientData = Array("GET /orders/\(counter)".utf8)
        let assertion = try key.assertion(counter: counter, clientData: clientData,
                                          extensions: SyntheticAppAttest.extensions(validationCategory: category, bundleVersion: version))
        let response = try server.post("/app-attest/assertion", ["apiKey": .string(publicKey), "keyId": .string(Base64.encode(key.keyId)),
                                                                 "clientData": .string(Base64.encode(clientData)), "assertion": .string(Base64.encode(assertion))])
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json)
    }

    static func verdict(_ answer: JSON) -> String {
        ([answer["verdict"]?["status"]?.string ?? "none"] + (answer["verdict"]?["reasons"]?.array?.compactMap(\.string) ?? [])).joined(separator: " ")
    }

    static func patch(_ server: DeviceServer, _ environment: String, _ body: String) throws -> (Int, JSON?) {
        let response = try server.client.send("PATCH", "/api/management/v1/environments/\(environment)",
                                              headers: [("Authorization", "Bearer " + server.token), ("Content-Type", "application/json")],
                                              body: Array(body.utf8))
        return (response.status, response.json)
    }

    @Test func categoriesAndBundleVersionsDecideThroughHTTP() throws {
        let server = try DeviceServer(["--device-rate-per-address", "0"])
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [Self.appId])

        // No policy: everything passes, and what the object carried is observed.
        let (key, open) = try Self.register(server, publicKey: publicKey, category: 3, version: "4.9")
        #expect(Self.verdict(open) == "verified")
        #expect(open["verdict"]?["observed"]?["validationCategory"]?.string == "development")
        #expect(open["verdict"]?["observed"]?["bundleVersion"]?.string == "4.9")
        #expect(open["verdict"]?["observed"]?["receipt"]?.string == "valid", "\(open)")

        let (status, body) = try Self.patch(server, environment,
            #"{"appAttest": {"validationCategories": ["appStore", "testFlight"], "minimumBundleVersion": "4.10"}}"#)
        #expect(status == 200, "\(String(describing: body))")
        #expect(body?["appAttest"]?["validationCategories"] == .array([.string("testFlight"), .string("appStore")]))
        #expect(body?["appAttest"]?["minimumBundleVersion"]?.string == "4.10")
        #expect(body?["appAttest"]?["requireValidationCategory"]?.bool == false)

        // Registrations: a listed category, an unlisted one, none (allowed until required).
        #expect(Self.verdict(try Self.register(server, publicKey: publicKey, category: 4, version: "4.10.1").1) == "verified")
        #expect(Self.verdict(try Self.register(server, publicKey: publicKey, category: 3, version: "4.10").1) == "rejected validationCategory:development")
        #expect(Self.verdict(try Self.register(server, publicKey: publicKey, category: 9, version: "5").1) == "rejected validationCategory:9")
        let (older, iOS26) = try Self.register(server, publicKey: publicKey, category: nil, version: nil)
        #expect(Self.verdict(iOS26) == "verified")
        #expect(iOS26["verdict"]?["observed"]?["validationCategory"] == nil)

        // Assertions: bundle versions compared as numbers (4.10 is above 4.9).
        #expect(Self.verdict(try Self.assert(server, key, counter: 1, publicKey: publicKey, category: 4, version: "4.9")) == "rejected bundleVersion:4.9")
        #expect(Self.verdict(try Self.assert(server, key, counter: 2, publicKey: publicKey, category: 4, version: "4.10")) == "verified")
        #expect(Self.verdict(try Self.assert(server, key, counter: 3, publicKey: publicKey, category: 2, version: "10.0")) == "verified")
        #expect(Self.verdict(try Self.assert(server, key, counter: 4, publicKey: publicKey, category: 6, version: "10.0")) == "rejected validationCategory:developerID")

        // Required: an object without a category (iOS 26) is now rejected.
        #expect(try Self.patch(server, environment, #"{"appAttest": {"requireValidationCategory": true}}"#).0 == 200)
        #expect(Self.verdict(try Self.register(server, publicKey: publicKey, category: nil, version: nil).1) == "rejected validationCategoryMissing")
        #expect(Self.verdict(try Self.assert(server, older, counter: 1, publicKey: publicKey, category: nil, version: nil)) == "rejected validationCategoryMissing")

        // null clears a member: any category again.
        #expect(try Self.patch(server, environment, #"{"appAttest": {"validationCategories": null, "requireValidationCategory": false}}"#).0 == 200)
        #expect(Self.verdict(try Self.register(server, publicKey: publicKey, category: 3, version: "4.10").1) == "verified")
    }

    @Test func theChecklistNamesDevelopmentLaunchesInProduction() throws {
        let server = try DeviceServer(["--device-rate-per-address", "0"])
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [Self.appId])
        for version in ["7.1", "7.2"] {
            _ = try Self.register(server, publicKey: publicKey, category: 3, version: version)
        }
        _ = try Self.register(server, publicKey: publicKey, category: 4, version: "7.0")
        // The three verdicts reach traffic within a second each, perhaps in different batches: wait for the third (the
        // item turns warn with the first two already, at 100 % of 2).
        let counted = "of 3 launches that said how they were signed"
        let waited = try waitUntil(seconds: 30) { try server.checklistItem(environment, "appAttest.validationCategory")?["detail"]?.string?.contains(counted) == true }
        #expect(waited != nil)
        let item = try #require(try server.checklistItem(environment, "appAttest.validationCategory"))
        #expect(item["status"]?.string == "warn")
        let detail = item["detail"]?.string ?? ""
        #expect(detail.contains("development (67% of 3 launches that said how they were signed; bundle versions 7.1 and 7.2)"), "\(detail)")
        #expect(item["evidence"]?["observed"]?.array?.first?["value"]?.string == "development")

        // Listing development makes it expected.
        #expect(try Self.patch(server, environment, #"{"appAttest": {"validationCategories": ["appStore", "development"]}}"#).0 == 200)
        #expect(try server.checklistItem(environment, "appAttest.validationCategory")?["status"]?.string == "ok")
    }

    @Test func badSettingsAreNamedByPointerAndTheKeyNeverEchoed() throws {
        let server = try DeviceServer()
        let (environment, _) = try server.environment(kind: "production", appIds: [Self.appId])
        let secret = "-----BEGIN PRIVATE KEY-----\nnot-a-key-SECRETMARKER\n-----END PRIVATE KEY-----"
        let body = JSON.object([.init("appAttest", .object([
            .init("validationCategories", .array([.string("store"), .string("appStore"), .string("appStore")])),
            .init("minimumBundleVersion", .string("")),
            .init("riskMetricAbove", .int(0)),
            .init("deviceCheckKey", .object([.init("keyId", .string("short")), .init("teamId", .string("ABCDE12345")), .init("privateKey", .string(secret))])),
            .init("colour", .string("blue")),
        ]))])
        let response = try server.client.send("PATCH", "/api/management/v1/environments/\(environment)",
                                              headers: [("Authorization", "Bearer " + server.token), ("Content-Type", "application/json")],
                                              body: body.serialized())
        #expect(response.status == 422, "\(response.text)")
        let pointers = Set(response.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } ?? [])
        #expect(pointers == ["/appAttest/validationCategories/0", "/appAttest/validationCategories/2", "/appAttest/minimumBundleVersion",
                             "/appAttest/riskMetricAbove", "/appAttest/deviceCheckKey/keyId", "/appAttest/deviceCheckKey/privateKey", "/appAttest/colour"],
                "\(response.text)")
        #expect(!response.text.contains("SECRETMARKER"))

        // A P-384 key is not a DeviceCheck key.
        let p384 = try Self.p384PEM()
        let wrongCurve = try Self.patch(server, environment, JSON.object([.init("appAttest", .object([.init("deviceCheckKey", .object([
            .init("keyId", .string("ABC123DEFG")), .init("teamId", .string("ABCDE12345")), .init("privateKey", .string(p384))]))]))]).text)
        #expect(wrongCurve.0 == 422)
        #expect(wrongCurve.1?["errors"]?.array?.first?["pointer"]?.string == "/appAttest/deviceCheckKey/privateKey")

        // A good key is stored write-only: GET says it is set, with its identifiers, never the key; the audit neither.
        let key = try ECPrivateKey.generate()
        let stored = try Self.patch(server, environment, JSON.object([.init("appAttest", .object([.init("deviceCheckKey", .object([
            .init("keyId", .string("ABC123DEFG")), .init("teamId", .string("ABCDE12345")), .init("privateKey", .string(key.pkcs8PEM))]))]))]).text)
        #expect(stored.0 == 200)
        #expect(stored.1?["appAttest"]?["deviceCheckKey"] == .object([.init("set", .bool(true)), .init("keyId", .string("ABC123DEFG")),
                                                                        .init("teamId", .string("ABCDE12345"))]))
        let pemBody = key.pkcs8PEM.split(separator: "\n")[1]
        #expect(!(stored.1?.text.contains(pemBody) ?? true))
        let audit = try server.client.send("GET", "/api/management/v1/audit", headers: [("Authorization", "Bearer " + server.token)])
        #expect(audit.text.contains("appAttest.deviceCheckKey"))
        #expect(!audit.text.contains(pemBody))
        #expect(try Self.patch(server, environment, #"{"appAttest": {"deviceCheckKey": null}}"#).1?["appAttest"]?["deviceCheckKey"] == .object([.init("set", .bool(false))]))
    }

    static func p384PEM() throws -> String {
        let directory = NSTemporaryDirectory() + "p384-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", directory + "/k.pem"], in: directory)
        return try String(contentsOfFile: directory + "/k.pem", encoding: .utf8)
    }
}
