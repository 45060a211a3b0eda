import ChildProcess
import Crypto
import Foundation
import Testing

/// `gatehouse key-attestation verify` as an operator runs it on a real device's chain (Google's test data): JSON out,
/// exit 0 when verified, 1 when judged and not, 2 for a usage mistake.
@Suite(.serialized) struct KeyAttestationCommandLineTests {
    static func run(_ arguments: [String]) throws -> (status: Int32, json: [String: Any]?, error: String) {
        let run = try CommandRun(try CommandRun.gatehouse(), ["key-attestation", "verify"] + arguments)
        return (run.status, (try? JSONSerialization.jsonObject(with: Data(run.outputText.utf8))) as? [String: Any], run.error)
    }

    @Test func aRealChainVerifiesAndAnotherChallengeDoesNot() throws {
        let device = try KeyAttestationVerifierTests.Device("tegu_sdk36_TEE_EC_2026_ROOT")
        let chain = try KeyDescriptionTests.fixturePath("keyattestation/tegu_sdk36_TEE_EC_2026_ROOT.pem")
        let at = ["--at", ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(device.now)))]
        let app = ["--package", device.app.packageName] + device.app.digests.flatMap { ["--digest", Hex.encode($0)] }
        let verified = try Self.run(["--chain", chain, "--challenge-hex", Hex.encode(device.challenge)] + app + at)
        #expect(verified.status == 0, "\(verified.error)")
        let observed = try #require(verified.json?["observed"] as? [String: Any])
        #expect(observed["verifiedBootState"] as? String == "verified")
        #expect(observed["osPatchLevel"] as? String == "2026-02")
        #expect(observed["provisioning"] as? String == "rkp")
        #expect(verified.json?["keyId"] as? String != nil)

        let other = try Self.run(["--chain", chain, "--challenge", "not the challenge"] + app + at)
        #expect(other.status == 1)
        #expect((other.json?["verdict"] as? [String: Any])?["reasons"] as? [String] == ["challengeInvalid"])

        let strict = try Self.run(["--chain", chain, "--challenge-hex", Hex.encode(device.challenge), "--policy", #"{"minimumPatchLevel": "2030-01"}"#] + at)
        #expect((strict.json?["verdict"] as? [String: Any])?["reasons"] as? [String] == ["patchLevel:2026-02"])
    }

    @Test func usageMistakesExitTwo() throws {
        let chain = try KeyDescriptionTests.fixturePath("keyattestation/tegu_sdk36_TEE_EC_2026_ROOT.pem")
        for arguments in [["--chain", "/nonexistent"], ["--chain", chain], ["--chain", chain, "--challenge", "a", "--challenge-hex", "61"],
                          ["--chain", chain, "--challenge", "a", "--policy", #"{"securityLevel": "software"}"#],
                          ["--chain", chain, "--challenge", "a", "--digest", "00"]] {
            let run = try Self.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.json == nil)
        }
    }
}
