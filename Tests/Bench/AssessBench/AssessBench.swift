import AttestationTesting
import Crypto
import Foundation
import Gatehouse
import GatehouseReceipts
import JSON
import SQLite

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
        let args = CommandLine.arguments
        if args.count == 3, args[1] == "profile" {
            try profile(count: Int(args[2]) ?? 2_000)
            return
        }
        guard args.count == 4, let count = Int(args[3]), count > 0 else {
            FileHandle.standardError.write(Data("usage: AssessBench DIR REPO COUNT\n".utf8))
            exit(2)
        }
        guard let text = ProcessInfo.processInfo.environment["GATEHOUSE_MASTER_KEY"], let masterKey = Base64.decode(text) else {
            FileHandle.standardError.write(Data("set GATEHOUSE_MASTER_KEY to base64 of 32 bytes\n".utf8))
            exit(2)
        }
        let directory = args[1]
        let minter = try PlayIntegrityMinter.random()
        let digest = try SecureRandom.bytes(32)
        let ca = try SyntheticAppAttest()
        try Data(ca.rootPEM.utf8).write(to: URL(fileURLWithPath: directory + "/roots.pem"))

        let database = try Database(path: directory + "/db.sqlite")
        _ = try Migrator(directory: args[2] + "/Migrations").migrate(database)
        let store = try Store(database: database, masterKey: masterKey)
        let environments = Environments(store: store)
        let (environment, issued) = try environments.create(name: "Bench", kind: .production, actor: .system)
        let body: JSON = [
            "androidApps": [["packageName": .string(packageName), "certificateDigests": [.string(Hex.encode(digest, uppercase: true, separator: ":"))]]],
            "appleAppIds": [.string(appID)],
            "playIntegrity": ["local": ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]],
        ]
        let patched = try environments.patch(environment.id, with: try EnvironmentPatch.parse(body), actor: .system)
        let publicKey = issued.first { $0.key.type == .public }?.key.publicValue ?? ""
        let secret = issued.compactMap(\.secret).first ?? ""
        try Data(secret.utf8).write(to: URL(fileURLWithPath: directory + "/secret.txt"))

        let keys = try register(store: store, environment: patched, ca: ca)
        let phone = try ECPrivateKey.generate()
        try write(directory, "ios", count) { i in
            let key = keys[i % keys.count]
            let envelope = try SignedEnvelope(apiKey: publicKey, platform: "ios",
                                              signed: SignedEnvelope.signedText(appID: "com.example.app", deviceID: "device-\(i % keys.count)",
                                                                                receiptKey: phone.publicKey),
                                              timestamp: nowMillis)
            let assertion = try key.assertion(counter: UInt32(i / keys.count + 1), clientData: envelope.clientData)
            return envelope.json(attestation: SignedEnvelope.appAttest(keyID: key.keyId, assertion: assertion))
        }
        try write(directory, "android", count) { _ in
            let envelope = try SignedEnvelope(apiKey: publicKey, platform: "android",
                                              signed: SignedEnvelope.signedText(appID: packageName, signatureDigest: Hex.encode(digest),
                                                                                deviceID: "pixel", receiptKey: phone.publicKey),
                                              timestamp: nowMillis)
            let payload = PlayIntegrityPayloadTemplate(packageName: packageName, certificateDigest: digest, requestHash: envelope.requestHash,
                                                       timestampMillis: nowMillis)
            return envelope.json(attestation: SignedEnvelope.playIntegrity(try minter.token(payload.json)))
        }
        let receipts = ReceiptIssuer(keys: ReceiptKeys(store: store))
        try ReceiptKeys(store: store).prepare()
        try write(directory, "verify", max(1, count / 10)) { i in
            let token = try receipts.issue(environmentID: patched.id, requestID: "req_bench\(i)", action: .allow,
                                           attestation: ReceiptAttestation(provider: "app-attest", status: "verified"),
                                           receiptKey: phone.publicKey.derSubjectPublicKeyInfo)
            let path = "/api/orders?page=\(i)"
            let proof = try RequestProof.sign(method: "GET", pathAndQuery: path, timestamp: nowMillis, key: phone)
            return ["token": .string(token), "method": "GET", "pathAndQuery": .string(path), "proof": .string(proof.header)]
        }
    }

    static var nowMillis: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// ``keyCount`` keys attested and registered through the App Attest service, as a phone would.
    static func register(store: Store, environment: Environment, ca: SyntheticAppAttest) throws -> [SyntheticKey] {
        let recorder = VerdictRecorder(verdicts: Verdicts(store: store))
        let service = AppAttestService(store: store, roots: ca.roots, committer: GroupCommit(database: store.database), recorder: recorder)
        var keys: [SyntheticKey] = []
        for _ in 0..<keyCount {
            let challenge = try service.issueChallenge(for: environment).challenge
            let key = try ca.attest(appId: appID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
            let outcome = try service.register(in: environment, keyID: key.keyId, challenge: challenge, attestation: key.attestation)
            guard outcome.verdict.isVerified else { throw BenchError("a bench key did not register: \(outcome.verdict.reasons)") }
            keys.append(key)
        }
        recorder.flush()
        return keys
    }

    /// Writes `count` request bodies to `DIR/<name>.txt` and the wrk script `DIR/<name>.lua` rotating through them.
    static func write(_ directory: String, _ name: String, _ count: Int, _ make: (Int) throws -> JSON) throws {
        var out = ""
        out.reserveCapacity(count * 1_800)
        for i in 0..<count { out += try make(i).text + "\n" }
        try Data(out.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(name).txt"))
        try Data(lua("\(directory)/\(name).txt").utf8).write(to: URL(fileURLWithPath: "\(directory)/\(name).lua"))
    }

    /// wrk: each thread loads every other line and sends them in turn; answers are counted as verified (an assessment
    /// whose attestation is verified, or a valid receipt) or not.
    static func lua(_ file: String) -> String {
        """
        local threads = {}
        local counter = 0
        function setup(thread)
          thread:set("id", counter)
          counter = counter + 1
          table.insert(threads, thread)
        end
        function init(args)
          bodies = {}
          local i = 0
          for line in io.lines("\(file)") do
            if i % 2 == id then table.insert(bodies, line) end
            i = i + 1
          end
          n = 0
          good = 0
          other = 0
          wrk.method = "POST"
          wrk.headers["Content-Type"] = "application/json"
          if os.getenv("BENCH_SECRET") then wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_SECRET") end
        end
        function request()
          n = n + 1
          return wrk.format(nil, nil, nil, bodies[((n - 1) % #bodies) + 1])
        end
        function response(status, headers, body)
          if status == 200 and (string.find(body, '"status":"verified"', 1, true) or string.find(body, '"valid":true', 1, true)) then
            good = good + 1
          else
            other = other + 1
            if other == 1 then io.stderr:write(status .. " " .. body .. "\\n") end
          end
        end
        function done(summary, latency, requests)
          local g, o = 0, 0
          for _, t in ipairs(threads) do g = g + t:get("good"); o = o + t:get("other") end
          io.write(string.format("good: %d, other: %d\\n", g, o))
        end
        """
    }
}

/// A preparation step that failed.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
