import BenchSupport
import Crypto
import Foundation
import Gatehouse
import Storage

/// The App Attest bench's preparation (Tests/Bench/attest-bench.sh serves and drives it with wrk):
/// - `setup DIR REPO KEYS`: a migrated database `DIR/db.sqlite`, or `BENCH_DATABASE`'s PostgreSQL database (master key
///   from `GATEHOUSE_MASTER_KEY`), with a
///   production environment registering one app id, and KEYS attested keys written straight into `attested_keys`
///   (their private keys kept in `DIR/keys.der` for signing); prints the environment's public key;
/// - `fill DIR TOTAL`: more rows in `attested_keys`, up to TOTAL, with random key ids (the bench's keys stay among
///   them, so a lookup walks an index of TOTAL keys);
/// - `requests DIR BASE COUNT`: COUNT assertion request bodies, one JSON object a line in `DIR/requests.txt`, the
///   keys in turn with counters BASE+1, BASE+2… (each verifiable once), and `DIR/assert.lua`, `DIR/challenge.lua`.
@main
struct AttestBench {
    static let appId = "ABCDE12345.com.example.app"

    static func main() throws {
        let args = CommandLine.arguments
        switch args.count >= 3 ? args[1] : "" {
        case "setup" where args.count >= 5: try setup(directory: args[2], repository: args[3], keys: Int(args[4]) ?? 1000)
        case "fill" where args.count >= 4: try fill(directory: args[2], total: Int(args[3]) ?? 1_000_000)
        case "requests" where args.count >= 5: try requests(directory: args[2], base: UInt32(args[3]) ?? 0, count: Int(args[4]) ?? 100_000)
        default:
            FileHandle.standardError.write(Data("usage: AttestBench setup DIR REPO KEYS | fill DIR TOTAL | requests DIR BASE COUNT\n".utf8))
            exit(2)
        }
    }

    static func setup(directory: String, repository: String, keys count: Int) throws {
        var patch = EnvironmentPatch()
        patch.appleAppIDs = .set([appId])
        let bench = try BenchDatabase(directory: directory, repository: repository, patch: patch)
        let keys = try (0..<count).map { _ in try ECPrivateKey.generate() }
        let now = Int64(Date().timeIntervalSince1970)
        _ = try BenchDatabase.open(directory).write { db in
            for key in keys {
                try insert(db, keyID: SHA256.hash(key.publicKey.x962), environmentID: bench.environment.id, publicKey: key.publicKey.x962, now: now)
            }
        }
        var file: [UInt8] = []
        for key in keys { file += [UInt8(key.pkcs8DER.count)] + key.pkcs8DER }
        try Data(file).write(to: URL(fileURLWithPath: directory + "/keys.der"))
        try Data((bench.environment.id + "\n" + bench.publicKey + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/environment.txt"))
        print(bench.publicKey)
    }

    static func insert(_ db: any SQLConnection, keyID: [UInt8], environmentID: String, publicKey: [UInt8], now: Int64) throws {
        try db.execute(
            "INSERT INTO attested_keys (key_id, environment_id, public_key, app_id, attestation_environment, counter_newest, counter_seen, created_at) VALUES (?, ?, ?, ?, 'production', 0, 0, ?)",
            [.blob(keyID), .text(environmentID), .blob(publicKey), .text(appId), .integer(now)])
    }

    static func environment(_ directory: String) throws -> (id: String, publicKey: String) {
        let lines = try String(contentsOfFile: directory + "/environment.txt", encoding: .utf8).split(separator: "\n").map(String.init)
        guard lines.count >= 2 else { throw BenchError("run setup first") }
        return (lines[0], lines[1])
    }

    static func keys(_ directory: String) throws -> [ECPrivateKey] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/keys.der")))
        var keys: [ECPrivateKey] = []
        var i = 0
        while i < bytes.count {
            let n = Int(bytes[i])
            keys.append(try ECPrivateKey(pkcs8DER: Array(bytes[(i + 1)..<(i + 1 + n)])))
            i += 1 + n
        }
        return keys
    }

    static func fill(directory: String, total: Int) throws {
        let database = try BenchDatabase.open(directory)
        let (environmentID, _) = try environment(directory)
        let existing = try database.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM attested_keys")?.int("n") ?? 0 }
        let filler = try keys(directory)[0].publicKey.x962
        let now = Int64(Date().timeIntervalSince1970)
        var done = existing
        while done < total {
            let n = min(50_000, total - done)
            _ = try database.write { db in
                // 500 rows a statement: a round trip per row would take minutes on PostgreSQL.
                var left = n
                while left > 0 {
                    let rows = min(500, left)
                    let values = Array(repeating: "(?, ?, ?, ?, 'production', 0, 0, ?)", count: rows).joined(separator: ", ")
                    var arguments: [SQLValue] = []
                    for _ in 0..<rows {
                        arguments += [.blob(try SecureRandom.bytes(32)), .text(environmentID), .blob(filler), .text(appId), .integer(now)]
                    }
                    try db.execute("INSERT INTO attested_keys (key_id, environment_id, public_key, app_id, attestation_environment, counter_newest, counter_seen, created_at) VALUES " + values, arguments)
                    left -= rows
                }
            }
            done += n
        }
        print("attested_keys: \(done) rows")
    }

    static func requests(directory: String, base: UInt32, count: Int) throws {
        let (_, publicKey) = try environment(directory)
        let keys = try keys(directory)
        let rpIdHash = SHA256.hash(appId)
        let lines = Lines(count: count)
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            for r in stride(from: part, to: count, by: 2) {
                let key = keys[r % keys.count]
                let counter = base + UInt32(r / keys.count) + 1
                let clientData = Array("POST /orders \(r)".utf8)
                let authenticatorData = rpIdHash + [0x40] + [UInt8(counter >> 24), UInt8((counter >> 16) & 0xFF), UInt8((counter >> 8) & 0xFF), UInt8(counter & 0xFF)]
                let nonce = SHA256.hash(authenticatorData + SHA256.hash(clientData))
                guard let signature = try? key.signature(for: nonce) else { continue }
                // CBOR: {"signature": bytes, "authenticatorData": bytes}.
                let assertion: [UInt8] = [0xA2, 0x69] + Array("signature".utf8) + [0x58, UInt8(signature.count)] + signature
                    + [0x71] + Array("authenticatorData".utf8) + [0x58, UInt8(authenticatorData.count)] + authenticatorData
                lines.set(r, "{\"apiKey\":\"\(publicKey)\",\"keyId\":\"\(Base64.encode(SHA256.hash(key.publicKey.x962)))\",\"clientData\":\"\(Base64.encode(clientData))\",\"assertion\":\"\(Base64.encode(assertion))\"}")
            }
        }
        let rotation = WrkRotation(requests: directory + "/requests.txt", tallies: [.init("verified", bodyContains: ["\"verified\""])])
        try rotation.write(lines.values, script: directory + "/assert.lua")
        try Data(challengeLua(publicKey).utf8).write(to: URL(fileURLWithPath: directory + "/challenge.lua"))
    }

    static func challengeLua(_ publicKey: String) -> String {
        """
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        wrk.body = '{"apiKey":"\(publicKey)"}'
        local failed = 0
        response = function(status, headers, body)
          if status ~= 201 then failed = failed + 1 end
        end
        """
    }
}

/// Lines filled in by two threads.
final class Lines: @unchecked Sendable {
    // @unchecked Sendable: `slots` is only touched under `lock`.
    private let lock = NSLock()
    private var slots: [String]

    init(count: Int) { slots = Array(repeating: "", count: count) }

    func set(_ i: Int, _ line: String) { lock.withLock { slots[i] = line } }

    var values: [String] { lock.withLock { slots.filter { !$0.isEmpty } } }
}
