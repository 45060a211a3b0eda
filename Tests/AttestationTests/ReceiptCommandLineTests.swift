import Attestation
import AttestationTesting
import Crypto
import Foundation
import Testing
import TestSupport

/// `gatehouse app-attest verify-receipt`, and the receipt and extensions `verify-attestation` prints, as an operator
/// runs them on the real vectors.
@Suite(.serialized) struct ReceiptCommandLineTests {
    static func receiptFile(_ vector: AttestationVector) throws -> String {
        try CommandLineTests.temporaryFile(try #require(try AttestationObject(vector.attestation).receipt))
    }

    @Test(arguments: ["warden_ios16_production.json", "webauthn4j_kayak_production.json", "apple_example_2026_production.json"])
    func aRealReceiptVerifiesWithItsFields(file: String) throws {
        let vector = try AttestationVector(file)
        let summary = try #require(vector.json["receiptSummary"] as? [String: Any])
        let at = try #require(vector.json["validAt"] as? String)
        let run = try CommandLineTests.run(["verify-receipt", "--receipt", try Self.receiptFile(vector), "--app-id", vector.appId,
                                            "--public-key", Hex.encode(vector.x962), "--at", at])
        #expect(run.status == 0, "\(run.output) \(run.error)")
        let json = try #require(run.json)
        #expect(json["valid"] as? Bool == true)
        #expect(json["reasons"] as? [String] == [])
        #expect(json["type"] as? String == "ATTEST")
        #expect(json["appId"] as? String == vector.appId)
        #expect(json["environment"] as? String == summary["environment"] as? String)
        #expect(json["creationTime"] as? String == String((summary["creationTime"] as? String ?? "").prefix(19)) + "Z")
        #expect(json["riskMetric"] is NSNull)
        #expect(json["publicKey"] as? String == Base64.encode(try ECPublicKey(x962: vector.x962).derSubjectPublicKeyInfo))
    }

    @Test func mismatchesAndTheWrongRootAreNamed() throws {
        let vector = try AttestationVector("warden_ios16_production.json")
        let path = try Self.receiptFile(vector)
        let at = try #require(vector.json["validAt"] as? String)
        let other = try CommandLineTests.run(["verify-receipt", "--receipt", path, "--app-id", "ABCDE12345.com.example.other",
                                              "--public-key", Hex.encode(try ECPrivateKey.generate().publicKey.x962), "--at", at])
        #expect(other.status == 1)
        #expect(other.json?["reasons"] as? [String] == ["appIdMismatch", "publicKeyMismatch"])
        #expect(other.json?["appId"] as? String == vector.appId, "what the receipt says is printed")

        let roots = try CommandLineTests.temporaryFile(Array(try appleAppAttestationRootPEM().utf8))
        let wrongRoot = try CommandLineTests.run(["verify-receipt", "--receipt", path, "--roots", roots, "--at", at])
        #expect(wrongRoot.status == 1)
        #expect(wrongRoot.json?["reasons"] as? [String] == ["certificateChainInvalid"])

        let junk = try CommandLineTests.run(["verify-receipt", "--receipt", try CommandLineTests.temporaryFile(Array("not a receipt".utf8))])
        #expect(junk.status == 1)
        #expect(junk.json?["reasons"] as? [String] == ["malformed"])
        #expect(junk.json?["type"] is NSNull)

        let missing = try CommandLineTests.run(["verify-receipt"])
        #expect(missing.status == 2)
    }

    @Test func verifyAttestationPrintsTheReceiptAndTheExtensions() throws {
        let vector = try AttestationVector("apple_example_2026_production.json")
        let path = try CommandLineTests.temporaryFile(Array(Base64.encode(vector.attestation).utf8))
        let run = try CommandLineTests.run(["verify-attestation", "--attestation", path, "--key-id", Base64.encode(vector.keyId), "--app-id", vector.appId,
                                            "--client-data-hash", Hex.encode(vector.clientDataHash), "--at", try #require(vector.json["validAt"] as? String),
                                            "--environment-kind", "production"])
        #expect(run.status == 0, "\(run.error)")
        let extensions = try #require(run.json?["extensions"] as? [String: Any])
        #expect(extensions["validationCategory"] as? Int == 1)
        #expect(extensions["bundleVersion"] as? String == "1")
        let receipt = try #require(run.json?["receipt"] as? [String: Any])
        #expect(receipt["valid"] as? Bool == true)
        #expect(receipt["expirationTime"] as? String == "2026-07-20T18:13:12Z")

        // An older object prints no extensions; its receipt against the App Attest root (not G3) is refused.
        let older = try AttestationVector("warden_ios17_development.json")
        let olderPath = try CommandLineTests.temporaryFile(older.attestation)
        let roots = try CommandLineTests.temporaryFile(Array(try appleAppAttestationRootPEM().utf8))
        let printed = try CommandLineTests.run(["verify-attestation", "--attestation", olderPath, "--key-id", Base64.encode(older.keyId), "--app-id", older.appId,
                                                "--client-data-hash", Hex.encode(older.clientDataHash), "--at", try #require(older.json["validAt"] as? String),
                                                "--receipt-roots", roots])
        #expect(printed.status == 0, "the attestation's verdict does not depend on its receipt")
        #expect(printed.json?["extensions"] == nil)
        #expect((printed.json?["receipt"] as? [String: Any])?["reasons"] as? [String] == ["certificateChainInvalid"])
    }
}
