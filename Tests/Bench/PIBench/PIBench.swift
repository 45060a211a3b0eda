import AttestationTesting
import BenchSupport
import Crypto
import Foundation
import Gatehouse
import JSON

/// The Play Integrity bench's preparation (Tests/Bench/pi-bench.sh serves and drives it with wrk):
/// `PIBench DIR REPO COUNT` makes a migrated database `DIR/db.sqlite` (master key from `GATEHOUSE_MASTER_KEY`) with a
/// production environment registering one Android app and random local keys, then mints COUNT distinct tokens as
/// Google would (each passes every check once, made now: fresh for 10 minutes) into `DIR/requests.txt`, one request
/// body a line, and writes `DIR/pi.lua`, which rotates through them (a token sent twice is a replay), and the
/// throwaway local keys to `DIR/keys.json`. A second environment with the same app and keys sets every knob of the
/// Play Integrity policy (strong integrity, minimum version code and SDK level, activity, Play Protect, seven refused
/// apps, testing responses, account activity); its tokens
/// pass it too: the bench compares the CPU per judgement of the two in one run (`DIR/pi-default-N.lua` and
/// `DIR/pi-policy-N.lua`, COUNT/2 fresh tokens each, rounds 1 and 2).
@main
struct PIBench {
    static let packageName = "com.example.app"
    static let requestHash = "bench-request-hash"

    static func main() throws {
        guard let (directory, repository, count) = try BenchCommand.preparation(CommandLine.arguments, name: "PIBench",
                                                                             profile: { try profile(count: $0) }) else { return }
        let minter = try PlayIntegrityMinter.random()
        let digest = try SecureRandom.bytes(32)
        let (publicKey, policyKey) = try setup(directory: directory, repository: repository, minter: minter, digest: digest)

        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var template = PlayIntegrityPayloadTemplate(packageName: packageName, certificateDigest: digest, requestHash: requestHash, timestampMillis: now)
        template.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY", "MEETS_STRONG_INTEGRITY"]
        // The main run's tokens, then fresh ones for each round of the policy comparison (a token sent twice would
        // be a replay): default and policy, twice.
        let runs = [(publicKey, "", count), (publicKey, "-default-1", count / 2), (policyKey, "-policy-1", count / 2),
                    (publicKey, "-default-2", count / 2), (policyKey, "-policy-2", count / 2)]
        for (key, name, tokens) in runs {
            let lines = try (0..<tokens).map { _ in
                let body: JSON = ["apiKey": .string(key), "packageName": .string(packageName), "requestHash": .string(requestHash),
                                  "token": .string(try minter.token(template.json))]
                return body.text
            }
            let rotation = WrkRotation(requests: directory + "/requests\(name).txt",
                                       tallies: [.init("verified", bodyContains: ["\"verified\""]), .init("replayed", bodyContains: ["verdictReplayed"])])
            try rotation.write(lines, script: directory + "/pi\(name).lua")
        }
        // The throwaway keys, for trying the key check or the dashboard by hand on this database.
        let keys: JSON = ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]
        try Data(keys.serialized()).write(to: URL(fileURLWithPath: directory + "/keys.json"))
    }

    /// The database with one environment (its app and local keys) and another with the same and every policy knob
    /// set; returns their public keys.
    static func setup(directory: String, repository: String, minter: PlayIntegrityMinter, digest: [UInt8]) throws -> (String, String) {
        let body: JSON = [
            "androidApps": [["packageName": .string(packageName), "certificateDigests": [.string(Hex.encode(digest, uppercase: true, separator: ":"))]]],
            "playIntegrity": ["local": ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]],
        ]
        let database = try BenchDatabase(directory: directory, repository: repository, patch: try EnvironmentPatch.parse(body))
        let policy: JSON = [
            "androidApps": body["androidApps"] ?? .null,
            "playIntegrity": ["local": body["playIntegrity"]?["local"] ?? .null, "policy": try JSONParser.parse(Self.policy)],
        ]
        return (database.publicKey, try database.addEnvironment(patch: try EnvironmentPatch.parse(policy)))
    }

    /// Every knob of the policy set, met by the bench's tokens.
    static let policy = """
        {"deviceIntegrity": "strong", "requireLicensed": true, "minimumVersionCode": {"com.example.app": 42}, "minimumSdkVersion": 30,
         "maximumActivityLevel": "LEVEL_2", "playProtect": "NO_ISSUES", "appsDetected": ["UNKNOWN_CONTROLLING", "UNKNOWN_CAPTURING",
         "UNKNOWN_OVERLAYS", "UNKNOWN_INSTALLED", "KNOWN_CONTROLLING", "KNOWN_CAPTURING", "KNOWN_OVERLAYS"],
         "rejectTestingResponses": true, "accountActivity": true}
        """
}
