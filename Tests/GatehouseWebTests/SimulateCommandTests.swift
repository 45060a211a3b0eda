import AttestationTesting
import ChildProcess
import Crypto
import Foundation
import JSON
import Testing

/// `gatehouse simulate` played against a running `gatehouse serve`, as the README's tour does: an Android phone with
/// local keys and a chosen verdict, an iOS phone with the synthetic CA the server trusts, the receipt checked by the
/// backend endpoint with the environment's secret key.
@Suite("gatehouse simulate", .serialized, .needsSyntheticCA)
struct SimulateCommandTests {
    static func simulate(_ server: DeviceServer, _ arguments: [String]) throws -> (status: Int32, report: JSON?, error: String) {
        let run = try CommandRun(try CommandRun.gatehouse(), ["simulate", "--endpoint", "http://127.0.0.1:\(server.client.port)"] + arguments, timeout: 60)
        return (run.status, try? JSONParser.parse(run.output), run.error)
    }

    @Test func aSimulatedIOS27BuildCarriesItsLaunchAndReceiptAndMeetsThePolicy() throws {
        let server = try DeviceServer()
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [AssessFixture.appId])
        let files = server.directory
        let ca = try DeviceServer.ca()
        let receipts = try #require(ca.receipts)
        for (text, name) in [(ca.intermediatePEM, "ca.pem"), (ca.intermediateKeyPEM, "ca.key"), (receipts.signerPEM, "receipt-signer.pem"),
                             (receipts.signerKeyPEM, "receipt-signer.key"), (receipts.intermediatePEM, "receipt-ca.pem"), (receipts.rootPEM, "receipt-roots.pem")] {
            try text.write(toFile: files + "/" + name, atomically: true, encoding: .utf8)
        }
        try server.patch(environment, ["appAttest": ["validationCategories": ["appStore", "testFlight"]]])
        let base = ["--api-key", publicKey, "--platform", "ios", "--ca-cert", files + "/ca.pem", "--ca-key", files + "/ca.key", "--app-id", AssessFixture.appId]

        let store = try Self.simulate(server, base + ["--validation-category", "appStore", "--bundle-version", "4.2"])
        #expect(store.status == 0, "\(store.error)")
        let registered = store.report?["registration"]?["body"]?["verdict"]
        #expect(registered?["status"]?.string == "verified")
        #expect(registered?["observed"]?["validationCategory"]?.string == "appStore")
        #expect(registered?["observed"]?["bundleVersion"]?.string == "4.2")
        #expect(registered?["observed"]?["receipt"]?.string == "valid", "the receipt signer beside ca.pem signed it")

        let development = try Self.simulate(server, base + ["--validation-category", "development", "--bundle-version", "4.2"])
        #expect(development.report?["registration"]?["body"]?["verdict"]?["reasons"]?.array == ["validationCategory:development"])

        let usage = try Self.simulate(server, base + ["--validation-category", "sideloaded"])
        #expect(usage.status == 2)
        #expect(usage.error.contains("--validation-category must be one of testFlight, development, appStore"), "\(usage.error)")

        // make-ca writes the receipt signer beside the CA, and the roots the server reads.
        let made = try CommandRun(try CommandRun.gatehouse(), ["simulate", "make-ca", files + "/made"], timeout: 60)
        #expect(made.status == 0)
        for name in ["roots.pem", "ca.pem", "ca.key", "receipt-roots.pem", "receipt-ca.pem", "receipt-signer.pem", "receipt-signer.key"] {
            #expect(FileManager.default.fileExists(atPath: files + "/made/" + name), "\(name)")
        }
    }

    @Test func androidAndIOSPhonesAreAssessedAndTheirReceiptsVerify() throws {
        let server = try DeviceServer()
        let fixture = try PlayIntegrityFixture()
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [AssessFixture.appId])
        try server.patch(environment, fixture.registration(playIntegrity: fixture.localKeys()))
        let secret = try #require(try server.secretKey(environment))
        let files = server.directory
        try fixture.minter.signingKey.pkcs8PEM.write(toFile: files + "/verification.pem", atomically: true, encoding: .utf8)
        try DeviceServer.ca().intermediatePEM.write(toFile: files + "/ca.pem", atomically: true, encoding: .utf8)
        try DeviceServer.ca().intermediateKeyPEM.write(toFile: files + "/ca.key", atomically: true, encoding: .utf8)

        let android = try Self.simulate(server, ["--api-key", publicKey, "--platform", "android", "--decryption-key", fixture.minter.decryptionKeyBase64,
                                                 "--verification-private-key", files + "/verification.pem", "--digest", Hex.encode(fixture.digest),
                                                 "--secret-key", secret])
        #expect(android.status == 0, "\(android.error)")
        #expect(android.report?["assess"]?["body"]?["attestation"]?["status"]?.string == "verified")
        #expect(android.report?["receipt"]?["claims"]?["env"]?.string == environment)
        #expect(android.report?["verify"]?["body"]?["valid"]?.bool == true)
        #expect(android.report?["verify"]?["body"]?["bound"]?.bool == true)

        let rooted = try Self.simulate(server, ["--api-key", publicKey, "--platform", "android", "--decryption-key", fixture.minter.decryptionKeyBase64,
                                                "--verification-private-key", files + "/verification.pem", "--digest", Hex.encode(fixture.digest),
                                                "--verdict", "rooted", "--wrong-signature"])
        #expect(rooted.report?["assess"]?["body"]?["attestation"]?["reasons"]?.array == ["deviceIntegrityNotMet"])
        #expect(rooted.report?["assess"]?["body"]?["tampering"]?["reasons"]?.array == ["signatureInvalid"])

        let ios = try Self.simulate(server, ["--api-key", publicKey, "--platform", "ios", "--ca-cert", files + "/ca.pem", "--ca-key", files + "/ca.key",
                                             "--app-id", AssessFixture.appId, "--secret-key", secret, "--device-id", "iphone-1"])
        #expect(ios.status == 0, "\(ios.error)")
        #expect(ios.report?["registration"]?["body"]?["verdict"]?["status"]?.string == "verified")
        #expect(ios.report?["assess"]?["body"]?["attestation"]?["status"]?.string == "verified")
        #expect(ios.report?["verify"]?["body"]?["valid"]?.bool == true)

        // A CI build under attack mode: the debug token instead of any key or CA, on both platforms.
        try server.patch(environment, ["attackMode": true])
        let created = try server.client.send("POST", "/api/management/v1/environments/\(environment)/debug-tokens",
                                             headers: [("Authorization", "Bearer " + server.token), ("Content-Type", "application/json")],
                                             body: Array(#"{"name": "CI simulator"}"#.utf8))
        let debugToken = try #require(created.json?["token"]?.string, "\(created.text)")
        for (platform, extra) in [("ios", ["--app-id", AssessFixture.appId]), ("android", ["--app-id", "com.example.app", "--digest", Hex.encode(fixture.digest)])] {
            let debug = try Self.simulate(server, ["--api-key", publicKey, "--platform", platform, "--debug-token", debugToken, "--secret-key", secret] + extra)
            #expect(debug.status == 0, "\(debug.error)")
            #expect(debug.report?["assess"]?["body"]?["attestation"]?["provider"]?.string == "debug")
            #expect(debug.report?["assess"]?["body"]?["attestation"]?["status"]?.string == "verified", "\(debug.report?.text ?? debug.error)")
            #expect(debug.report?["assess"]?["body"]?["attackMode"]?.string == "proven")
            #expect(debug.report?["receipt"]?["claims"]?["att"]?["provider"]?.string == "debug")
            #expect(debug.report?["verify"]?["body"]?["valid"]?.bool == true)
        }
        let wrong = try Self.simulate(server, ["--api-key", publicKey, "--platform", "ios", "--app-id", "com.example.app", "--debug-token", "dt_wrong"])
        #expect(wrong.report?["assess"]?["body"]?["attestation"]?["reasons"]?.array == ["debugTokenInvalid"])
        #expect(wrong.report?["assess"]?["body"]?["attackMode"]?.string == "unproven")

        let usage = try Self.simulate(server, ["--api-key", publicKey, "--platform", "windows"])
        #expect(usage.status == 2)
        #expect(usage.error.contains("--platform must be android or ios"))
    }

    @Test func aPhoneWithoutPlayIsPlayedByItsKnobsUnderTheCAMakeCAWrote() throws {
        let files = NSTemporaryDirectory() + "gatehouse-simulate-ka-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: files) }
        let made = try CommandRun(try CommandRun.gatehouse(), ["simulate", "make-ca", files], timeout: 60)
        #expect(made.status == 0, "\(made.error)")
        let server = try DeviceServer(["--device-rate-per-address", "0", "--key-attestation-roots", files + "/key-attestation-roots.pem"])
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [])
        let digest = Hex.encode(Array(repeating: UInt8(0xC4), count: 32))
        try server.patch(environment, try JSONParser.parse("""
            {"androidApps": [{"packageName": "com.example.app", "certificateDigests": ["\(digest)"]}], "keyAttestation": {"enabled": true}}
            """))
        let secret = try #require(try server.secretKey(environment))
        let base = ["--api-key", publicKey, "--platform", "android", "--provider", "key-attestation", "--ca-cert", files + "/key-attestation-ca.pem",
                    "--ca-key", files + "/key-attestation-ca.key", "--digest", digest]
        func registration(_ extra: [String]) throws -> JSON? { try Self.simulate(server, base + extra).report?["registration"]?["body"] }
        func verdict(_ extra: [String]) throws -> String {
            let verdict = try registration(extra)?["verdict"]
            return ([verdict?["status"]?.string ?? "none"] + (verdict?["reasons"]?.array?.compactMap(\.string) ?? [])).joined(separator: " ")
        }

        let phone = try Self.simulate(server, base + ["--secret-key", secret])
        #expect(phone.status == 0, "\(phone.error)")
        #expect(phone.report?["registration"]?["body"]?["verdict"]?["status"]?.string == "verified", "\(phone.report?.text ?? phone.error)")
        #expect(phone.report?["registration"]?["body"]?["observed"]?["provisioning"]?.string == "factory")
        #expect(phone.report?["assess"]?["body"]?["attestation"]?["status"]?.string == "verified")
        #expect(phone.report?["receipt"]?["claims"]?["att"]?["provider"]?.string == "key-attestation")
        #expect(phone.report?["verify"]?["body"]?["valid"]?.bool == true)

        #expect(try registration(["--rkp"])?["observed"]?["provisioning"]?.string == "rkp")
        #expect(try verdict(["--rkp"]) == "verified")
        #expect(try verdict(["--boot-state", "self-signed"]) == "rejected bootKeyUnknown")
        #expect(try verdict(["--boot-state", "unverified"]) == "rejected bootUnverified")
        #expect(try verdict(["--unlocked"]) == "rejected bootloaderUnlocked")
        #expect(try verdict(["--security-level", "software"]) == "forged softwareKey")
        #expect(try registration(["--security-level", "strongbox"])?["observed"]?["securityLevel"]?.string == "strongbox")
        try server.patch(environment, ["keyAttestation": ["minimumPatchLevel": "2025-06"]])
        #expect(try verdict(["--patch-level", "2024-01"]) == "rejected patchLevel:2024-01")
        #expect(try verdict(["--patch-level", "2025-06"]) == "verified")

        let usage = try Self.simulate(server, base + ["--boot-state", "orange"])
        #expect(usage.status == 2)
        #expect(usage.error.contains("--boot-state must be verified, self-signed or unverified"), "\(usage.error)")
    }
}

extension DeviceServer {
    /// A new secret key of environment `id`, made through the management API.
    func secretKey(_ id: String) throws -> String? {
        let response = try client.send("POST", "/api/management/v1/environments/\(id)/keys",
                                       headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                       body: Array(#"{"type": "secret", "name": "simulate"}"#.utf8))
        #expect(response.status == 201, "\(response.text)")
        return response.json?["secret"]?.string
    }
}
