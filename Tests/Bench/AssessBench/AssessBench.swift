import AttestationTesting
import BenchSupport
import Crypto
import Foundation
import Gatehouse
import GatehouseReceipts
import JSON

/// The assess bench's preparation (Tests/Bench/assess-bench.sh serves and drives it with wrk):
/// `AssessBench DIR REPO COUNT` makes a migrated database `DIR/db.sqlite` (master key from `GATEHOUSE_MASTER_KEY`)
/// with a production environment registering an Android app with local keys and an iOS app id, registers
/// ``keyCount`` App Attest keys (attested by a synthetic CA whose root it writes to `DIR/roots.pem`, for
/// `--app-attest-roots`), then writes, one request body a line, COUNT distinct signed iOS requests with assertions
/// (`ios.txt`; key i % keyCount, counters rising per key, one device per key), COUNT Android requests with tokens
/// bound to their canonical strings (`android.txt`), COUNT / 10 bound receipts with fresh proofs for
/// `/api/v4/receipts/verify` (`verify.txt`, the secret key in `secret.txt`), and a wrk script per file.
@main
struct AssessBench {
    static let packageName = "com.example.app"
    static let appID = "ABCDE12345.com.example.app"
    /// Keys the iOS requests rotate through: even, so each of wrk's two threads (every other line) holds its own keys,
    /// and a key comes back every 32 lines of a thread, so 32 connections in flight reorder its counters by about one.
    static let keyCount = 64

    static func main() throws {
        guard let (directory, repository, count) = try BenchCommand.preparation(CommandLine.arguments, name: "AssessBench",
                                                                             profile: { try profile(count: $0) }) else { return }
        let minter = try PlayIntegrityMinter.random()
        let digest = try SecureRandom.bytes(32)
        let ca = try SyntheticAppAttest()
        try Data(ca.rootPEM.utf8).write(to: URL(fileURLWithPath: directory + "/roots.pem"))

        let body: JSON = [
            "androidApps": [["packageName": .string(packageName), "certificateDigests": [.string(Hex.encode(digest, uppercase: true, separator: ":"))]]],
            "appleAppIds": [.string(appID)],
            "playIntegrity": ["local": ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]],
        ]
        if let receipts = ca.receipts { try Data(receipts.rootPEM.utf8).write(to: URL(fileURLWithPath: directory + "/receipt-roots.pem")) }
        let bench = try BenchDatabase(directory: directory, repository: repository, patch: try EnvironmentPatch.parse(body)) { configuration in
            configuration.appAttestRoots = directory + "/roots.pem"
            configuration.appAttestReceiptRoots = ca.receipts == nil ? nil : directory + "/receipt-roots.pem"
        }
        try Data(bench.secretKey.utf8).write(to: URL(fileURLWithPath: directory + "/secret.txt"))

        let keys = try register(bench.domain, environment: bench.environment, ca: ca)
        let phone = try ECPrivateKey.generate()
        try write(directory, "ios", count) { i in
            let key = keys[i % keys.count]
            let envelope = try SignedEnvelope(apiKey: bench.publicKey, platform: "ios",
                                              signed: SignedEnvelope.signedText(appID: "com.example.app", deviceID: "device-\(i % keys.count)",
                                                                                receiptKey: phone.publicKey),
                                              timestamp: nowMillis)
            let assertion = try key.assertion(counter: UInt32(i / keys.count + 1), clientData: envelope.clientData)
            return envelope.json(attestation: SignedEnvelope.appAttest(keyID: key.keyId, assertion: assertion))
        }
        try write(directory, "android", count) { _ in
            let envelope = try SignedEnvelope(apiKey: bench.publicKey, platform: "android",
                                              signed: SignedEnvelope.signedText(appID: packageName, signatureDigest: Hex.encode(digest),
                                                                                deviceID: "pixel", receiptKey: phone.publicKey),
                                              timestamp: nowMillis)
            let payload = PlayIntegrityPayloadTemplate(packageName: packageName, certificateDigest: digest, requestHash: envelope.requestHash,
                                                       timestampMillis: nowMillis)
            return envelope.json(attestation: SignedEnvelope.playIntegrity(try minter.token(payload.json)))
        }
        let receipts = bench.domain.receipts
        try bench.domain.receiptKeys.prepare()
        try write(directory, "verify", max(1, count / 10)) { i in
            let token = try receipts.issue(environmentID: bench.environment.id, requestID: "req_bench\(i)", platform: "ios", action: .allow,
                                           attestation: ReceiptAttestation(provider: "app-attest", status: "verified"),
                                           receiptKey: phone.publicKey.derSubjectPublicKeyInfo)
            let path = "/api/orders?page=\(i)"
            let proof = try RequestProof.sign(method: "GET", pathAndQuery: path, timestamp: nowMillis, key: phone)
            return ["token": .string(token), "method": "GET", "pathAndQuery": .string(path), "proof": .string(proof.header)]
        }
    }

    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// ``keyCount`` keys attested and registered through the App Attest service, as a phone would.
    static func register(_ domain: Domain, environment: Environment, ca: SyntheticAppAttest) throws -> [SyntheticKey] {
        let service = domain.appAttest
        var keys: [SyntheticKey] = []
        for _ in 0..<keyCount {
            let challenge = try service.issueChallenge(for: environment).challenge
            let key = try ca.attest(appId: appID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
            let outcome = try service.register(in: environment, keyID: key.keyId, challenge: challenge, attestation: key.attestation)
            guard outcome.verdict.isVerified else { throw BenchError("a bench key did not register: \(outcome.verdict.reasons)") }
            keys.append(key)
        }
        domain.stop()
        return keys
    }

    /// Writes `count` request bodies to `DIR/<name>.txt` and the wrk script `DIR/<name>.lua` rotating through them.
    static func write(_ directory: String, _ name: String, _ count: Int, _ make: (Int) throws -> JSON) throws {
        let rotation = WrkRotation(requests: "\(directory)/\(name).txt",
                                   tallies: [.init("good", bodyContains: ["\"status\":\"verified\"", "\"valid\":true"])])
        try rotation.write(try (0..<count).map { try make($0).text }, script: "\(directory)/\(name).lua")
    }
}
