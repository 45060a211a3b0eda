import AttestationTesting
import ChildProcess
import Crypto
import Foundation
import Testing

/// `gatehouse app-attest …` as an operator runs it: files or standard input, base64 or raw, JSON out, exit status.
@Suite(.serialized) struct CommandLineTests {
    struct Run {
        var status: Int32
        var output: String
        var error: String
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any]
        }
        var verdict: [String: Any]? { json?["verdict"] as? [String: Any] }
        var status_: String? { verdict?["status"] as? String }
        var reasons: [String]? { verdict?["reasons"] as? [String] }
    }

    static func run(_ arguments: [String], input: [UInt8] = []) throws -> Run {
        let run = try CommandRun(try CommandRun.gatehouse(), ["app-attest"] + arguments, input: input)
        return Run(status: run.status, output: run.outputText, error: run.error)
    }

    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "gatehouse-appattest-cli-" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let attestations = ["apple_example_2024_production.json", "apple_example_2026_production.json",
                               "warden_ios17_development.json", "webauthn4j_kayak_production.json"]

    @Test(arguments: attestations) func verifiesAttestationVectors(file: String) throws {
        let vector = try AttestationVector(file)
        let path = try Self.temporaryFile(Array(Base64.encode(vector.attestation).utf8))
        let common = ["verify-attestation", "--attestation", path, "--key-id", Base64.encode(vector.keyId), "--app-id", vector.appId,
                      "--client-data-hash", Hex.encode(vector.clientDataHash)]
        let at = ["--at", try #require(vector.json["validAt"] as? String)]
        let verified = try Self.run(common + at + ["--environment-kind", vector.environment.rawValue])
        #expect(verified.status == 0, "\(verified.error)")
        #expect(verified.status_ == "verified")
        #expect(verified.reasons == [])
        #expect(verified.json?["keyId"] as? String == Base64.encode(vector.keyId))
        #expect(verified.json?["appId"] as? String == vector.appId)
        #expect(verified.json?["attestationEnvironment"] as? String == vector.environment.rawValue)
        #expect(verified.json?["publicKey"] as? String == Base64.encode(try ECPublicKey(x962: vector.x962).derSubjectPublicKeyInfo))

        // Raw bytes on standard input, at the current time: every leaf has expired.
        let expired = try Self.run(["verify-attestation", "--attestation", "-", "--key-id", Base64.encode(vector.keyId),
                                    "--app-id", vector.appId, "--client-data-hash", Hex.encode(vector.clientDataHash)],
                                   input: vector.attestation)
        #expect(expired.status == 1)
        #expect(expired.status_ == "forged")
        #expect(expired.reasons == ["certificateChainInvalid"])

        let elsewhere = try Self.run(["verify-attestation", "--attestation", path, "--key-id", Base64.encode(vector.keyId),
                                      "--app-id", "ZZZZZZZZZZ.com.example.other", "--challenge", "x"] + at)
        #expect(elsewhere.status == 1)
        #expect(elsewhere.reasons == ["nonceMismatch"])
    }

    @Test func aDevelopmentKeyIsRejectedWhenTheEnvironmentIsProduction() throws {
        let vector = try AttestationVector("bas_d_chiff_development.json")
        let path = try Self.temporaryFile(vector.attestation)
        let args = ["verify-attestation", "--attestation", path, "--key-id", Base64.encode(vector.keyId), "--app-id", vector.appId,
                    "--challenge", "attestation-test", "--at", try #require(vector.json["validAt"] as? String)]
        #expect(try Self.run(args).status == 0)
        let production = try Self.run(args + ["--environment-kind", "production"])
        #expect(production.status == 1)
        #expect(production.status_ == "rejected")
        #expect(production.reasons == ["developmentKey"])
    }

    @Test func verifiesAssertionVectors() throws {
        let json = try Fixtures.json("veehaitch_ios_14_4_assertion.json")
        let assertion = try Fixtures.base64(try #require(json["assertion"] as? String))
        let assertionPath = try Self.temporaryFile(assertion)
        // "wurzelpfropf" would pass for base64: give it base64-encoded.
        let clientData = try Self.temporaryFile(Array(Base64.encode(Array("wurzelpfropf".utf8)).utf8))
        let key = try #require(json["publicKey"] as? [String: Any])
        let x962 = try #require(key["x962UncompressedHex"] as? String)
        let pem = try Self.temporaryFile(Array(try #require(key["spkiPem"] as? String).utf8))
        let appId = try #require(json["appId"] as? String)
        for publicKey in [x962, pem, Base64.encode(try ECPublicKey(x962: try Fixtures.hex(x962)).derSubjectPublicKeyInfo)] {
            let run = try Self.run(["verify-assertion", "--assertion", assertionPath, "--public-key", publicKey, "--app-id", appId,
                                    "--client-data", clientData])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.status_ == "verified")
            #expect(run.json?["counter"] as? Int == 1)
        }
        let reused = try Self.run(["verify-assertion", "--assertion", "-", "--public-key", x962, "--app-id", appId,
                                   "--client-data-hash", Hex.encode(SHA256.hash("wurzelpfropf")), "--previous-counter", "1"],
                                  input: Array(Base64.encode(assertion).utf8))
        #expect(reused.status == 1)
        #expect(reused.reasons == ["counterReused"])
        let regressed = try Self.run(["verify-assertion", "--assertion", assertionPath, "--public-key", x962, "--app-id", appId,
                                      "--client-data", clientData, "--previous-counter", "33"])
        #expect(regressed.status_ == "rejected")
        #expect(regressed.reasons == ["counterRegression"])
        let raw = try Self.run(["verify-assertion", "--assertion", assertionPath, "--public-key", x962, "--app-id", appId,
                                "--client-data", try Self.temporaryFile(Array("wurzelpfropf".utf8))])
        #expect(raw.status == 1, "raw wurzelpfropf decodes as base64, so it is not the client data")
        #expect(raw.reasons == ["assertionInvalid"])
    }

    @Test func usageErrorsExitTwoAndUndecodableObjectsAreJudged() throws {
        let missing = try Self.run(["verify-attestation", "--attestation", "/nonexistent/file", "--key-id", "AA==", "--app-id", "A.b",
                                    "--challenge", "x"])
        #expect(missing.status == 2)
        #expect(missing.error.contains("cannot read"))
        #expect(try Self.run(["verify-attestation", "--key-id", "AA==", "--app-id", "A.b", "--challenge", "x"]).status == 2)
        #expect(try Self.run(["verify-attestation", "--attestation", "-", "--key-id", "AA==", "--app-id", "A.b", "--challenge", "x",
                              "--client-data-hash", "00"]).status == 2)
        #expect(try Self.run(["verify-attestation", "--attestation", "-", "--key-id", "AA==", "--app-id", "A.b", "--challenge", "x",
                              "--at", "yesterday"]).status == 2)
        #expect(try Self.run(["verify-attestation", "--attestation", "-", "--key-id", "AA==", "--app-id", "A.b", "--challenge", "x",
                              "--bogus", "1"]).status == 2)
        #expect(try Self.run(["verify-assertion", "--assertion", "-", "--public-key", "nonsense", "--app-id", "A.b",
                              "--client-data-hash", "00"]).status == 2)
        #expect(try Self.run(["frobnicate"]).status == 2)
        #expect(try Self.run(["--help"]).status == 0)

        let garbage = try Self.run(["verify-attestation", "--attestation", "-", "--key-id", "AA==", "--app-id", "A.b", "--challenge", "x"],
                                   input: [0xFF, 0x00, 0x13])
        #expect(garbage.status == 1)
        #expect(garbage.status_ == "forged")
        #expect(garbage.reasons == ["attestationInvalid"])
        #expect(garbage.json?["keyId"] is NSNull)
    }

    @Test func syntheticRootsReplaceApples() throws {
        let ca = try SyntheticAppAttest()
        let key = try ca.attest(appId: "ABCDE12345.com.example.app", clientDataHash: SHA256.hash("hello"))
        let roots = try Self.temporaryFile(Array(ca.rootPEM.utf8))
        let attestation = try Self.temporaryFile(key.attestation)
        let at = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(key.validAt)))
        let args = ["verify-attestation", "--attestation", attestation, "--key-id", Base64.encode(key.keyId),
                    "--app-id", "ABCDE12345.com.example.app", "--challenge", "hello", "--at", at]
        #expect(try Self.run(args + ["--roots", roots]).status == 0)
        #expect(try Self.run(args).reasons == ["certificateChainInvalid"])
    }
}
