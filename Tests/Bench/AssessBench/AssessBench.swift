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
/// `/api/v4/receipts/verify` (`verify.txt`, the secret key in `secret.txt`), and a wrk script per file. Android key
/// attestation too, under a synthetic key attestation CA whose root it writes to `DIR/key-attestation-roots.pem` (for
/// `--key-attestation-roots`): ``keyCount`` keys registered through the service, COUNT assessments signed by them
/// (`keyattest.txt`), and ``keyCount`` registrations of new keys with challenges issued for them (`register.txt`).
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
        let hardware = try SyntheticKeyAttestation()
        try Data(hardware.rootPEM.utf8).write(to: URL(fileURLWithPath: directory + "/key-attestation-roots.pem"))

        let body: JSON = [
            "androidApps": [["packageName": .string(packageName), "certificateDigests": [.string(Hex.encode(digest, uppercase: true, separator: ":"))]]],
            "appleAppIds": [.string(appID)],
            "playIntegrity": ["local": ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]],
            "keyAttestation": ["enabled": true],
        ]
        if let receipts = ca.receipts { try Data(receipts.rootPEM.utf8).write(to: URL(fileURLWithPath: directory + "/receipt-roots.pem")) }
        let bench = try BenchDatabase(directory: directory, repository: repository, patch: try EnvironmentPatch.parse(body)) { configuration in
            configuration.appAttestRoots = directory + "/roots.pem"
            configuration.appAttestReceiptRoots = ca.receipts == nil ? nil : directory + "/receipt-roots.pem"
            configuration.keyAttestationRoots = directory + "/key-attestation-roots.pem"
        }
        try Data(bench.secretKey.utf8).write(to: URL(fileURLWithPath: directory + "/secret.txt"))

        let keys = try register(bench.domain, environment: bench.environment, ca: ca)
        var device = SyntheticKeyAttestation.Phone()
        device.packageName = packageName
        device.signatureDigests = [digest]
        let attested = try registerKeyAttestation(bench.domain, environment: bench.environment, ca: hardware, device: device)
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
        try write(directory, "keyattest", count) { i in
            let key = attested[i % attested.count]
            let envelope = try SignedEnvelope(apiKey: bench.publicKey, platform: "android",
                                              signed: SignedEnvelope.signedText(appID: packageName, signatureDigest: Hex.encode(digest),
                                                                                deviceID: "pixel-\(i % attested.count)", receiptKey: phone.publicKey),
                                              timestamp: nowMillis)
            return envelope.json(attestation: ["provider": "key-attestation", "keyId": .string(key.keyID),
                                               "token": .string(Base64.encode(try key.privateKey.signature(for: envelope.clientData)))])
        }
        // Registrations: the first keyCount answers register new keys; after them the challenges are spent, and the
        // same chains are refused challengeInvalid after the same chain verification and transaction (no key stored).
        let registrations: [JSON] = try (0..<keyCount).map { _ in
            let challenge = try bench.domain.appAttest.issueChallenge(for: bench.environment).challenge
            let chain = try hardware.attest(challenge: Array(challenge.utf8), phone: device).chain
            let body: JSON = ["apiKey": .string(bench.publicKey), "challenge": .string(challenge),
                              "certificateChain": .array(chain.map { .string(Base64.encode($0)) })]
            return body
        }
        try write(directory, "register", keyCount) { registrations[$0] }
        bench.domain.stop()
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
        return keys
    }

    /// ``keyCount`` keys of `device` attested by `ca` and registered through the key attestation service.
    static func registerKeyAttestation(_ domain: Domain, environment: Environment, ca: SyntheticKeyAttestation,
                                       device: SyntheticKeyAttestation.Phone) throws -> [SyntheticKeyAttestation.Attested] {
        try (0..<keyCount).map { _ in
            let challenge = try domain.appAttest.issueChallenge(for: environment).challenge
            let key = try ca.attest(challenge: Array(challenge.utf8), phone: device)
            let outcome = try domain.keyAttestation.register(in: environment, challenge: challenge, chain: key.chain)
            guard outcome.verdict.isVerified else { throw BenchError("a bench key attestation did not register: \(outcome.verdict.reasons)") }
            return key
        }
    }

    /// Writes `count` request bodies to `DIR/<name>.txt` and the wrk script `DIR/<name>.lua` rotating through them.
    static func write(_ directory: String, _ name: String, _ count: Int, _ make: (Int) throws -> JSON) throws {
        let rotation = WrkRotation(requests: "\(directory)/\(name).txt",
                                   tallies: [.init("good", bodyContains: ["\"status\":\"verified\"", "\"valid\":true"]),
                                             .init("spent", bodyContains: ["challengeInvalid"])])
        try rotation.write(try (0..<count).map { try make($0).text }, script: "\(directory)/\(name).lua")
    }
}
