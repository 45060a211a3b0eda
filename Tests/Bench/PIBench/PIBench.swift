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
/// throwaway local keys to `DIR/keys.json`.
@main
struct PIBench {
    static let packageName = "com.example.app"
    static let requestHash = "bench-request-hash"

    static func main() throws {
        guard let (directory, repository, count) = try BenchCommand.preparation(CommandLine.arguments, name: "PIBench",
                                                                             profile: { try profile(count: $0) }) else { return }
        let minter = try PlayIntegrityMinter.random()
        let digest = try SecureRandom.bytes(32)
        let publicKey = try setup(directory: directory, repository: repository, minter: minter, digest: digest)

        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let template = PlayIntegrityPayloadTemplate(packageName: packageName, certificateDigest: digest, requestHash: requestHash, timestampMillis: now)
        let lines = try (0..<count).map { _ in
            let body: JSON = ["apiKey": .string(publicKey), "packageName": .string(packageName), "requestHash": .string(requestHash),
                              "token": .string(try minter.token(template.json))]
            return body.text
        }
        let rotation = WrkRotation(requests: directory + "/requests.txt",
                                   tallies: [.init("verified", bodyContains: ["\"verified\""]), .init("replayed", bodyContains: ["verdictReplayed"])])
        try rotation.write(lines, script: directory + "/pi.lua")
        // The throwaway keys, for trying the key check or the dashboard by hand on this database.
        let keys: JSON = ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]
        try Data(keys.serialized()).write(to: URL(fileURLWithPath: directory + "/keys.json"))
    }

    /// The database with one environment (its app and local keys); returns the environment's public key.
    static func setup(directory: String, repository: String, minter: PlayIntegrityMinter, digest: [UInt8]) throws -> String {
        let body: JSON = [
            "androidApps": [["packageName": .string(packageName), "certificateDigests": [.string(Hex.encode(digest, uppercase: true, separator: ":"))]]],
            "playIntegrity": ["local": ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]],
        ]
        return try BenchDatabase(directory: directory, repository: repository, patch: try EnvironmentPatch.parse(body)).publicKey
    }
}
