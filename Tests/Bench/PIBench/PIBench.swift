import AttestationTesting
import Crypto
import Foundation
import Gatehouse
import JSON
import SQLite

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
        let args = CommandLine.arguments
        if args.count == 3, args[1] == "profile" {
            try profile(count: Int(args[2]) ?? 2_000)
            return
        }
        guard args.count == 4, let count = Int(args[3]), count > 0 else {
            FileHandle.standardError.write(Data("usage: PIBench DIR REPO COUNT\n".utf8))
            exit(2)
        }
        guard let text = ProcessInfo.processInfo.environment["GATEHOUSE_MASTER_KEY"], let masterKey = Base64.decode(text) else {
            FileHandle.standardError.write(Data("set GATEHOUSE_MASTER_KEY to base64 of 32 bytes\n".utf8))
            exit(2)
        }
        let directory = args[1]
        let minter = try PlayIntegrityMinter.random()
        let digest = try SecureRandom.bytes(32)
        let publicKey = try setup(directory: directory, repository: args[2], masterKey: masterKey, minter: minter, digest: digest)

        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let template = PlayIntegrityPayloadTemplate(packageName: packageName, certificateDigest: digest, requestHash: requestHash, timestampMillis: now)
        var out = ""
        out.reserveCapacity(count * 1_600)
        for _ in 0..<count {
            let body: JSON = ["apiKey": .string(publicKey), "packageName": .string(packageName), "requestHash": .string(requestHash),
                              "token": .string(try minter.token(template.json))]
            out += body.text + "\n"
        }
        try Data(out.utf8).write(to: URL(fileURLWithPath: directory + "/requests.txt"))
        try Data(lua(directory).utf8).write(to: URL(fileURLWithPath: directory + "/pi.lua"))
        // The throwaway keys, for trying the key check or the dashboard by hand on this database.
        let keys: JSON = ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]
        try Data(keys.serialized()).write(to: URL(fileURLWithPath: directory + "/keys.json"))
    }

    /// The database with one environment (its app and local keys); returns the environment's public key.
    static func setup(directory: String, repository: String, masterKey: [UInt8], minter: PlayIntegrityMinter, digest: [UInt8]) throws -> String {
        let database = try Database(path: directory + "/db.sqlite")
        _ = try Migrator(directory: repository + "/Migrations").migrate(database)
        let store = try Store(database: database, masterKey: masterKey)
        let environments = Environments(store: store)
        let (environment, issued) = try environments.create(name: "Bench", kind: .production, actor: .system)
        let body: JSON = [
            "androidApps": [["packageName": .string(packageName), "certificateDigests": [.string(Hex.encode(digest, uppercase: true, separator: ":"))]]],
            "playIntegrity": ["local": ["decryptionKey": .string(minter.decryptionKeyBase64), "verificationKey": .string(minter.verificationKeyBase64)]],
        ]
        _ = try environments.patch(environment.id, with: try EnvironmentPatch.parse(body), actor: .system)
        return issued.first { $0.key.type == .public }?.key.publicValue ?? ""
    }

    /// wrk: each thread loads its share of the request lines (every n-th) and sends them in turn; responses are counted
    /// by verdict.
    static func lua(_ directory: String) -> String {
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
          for line in io.lines("\(directory)/requests.txt") do
            if i % 2 == id then table.insert(bodies, line) end
            i = i + 1
          end
          n = 0
          verified = 0
          replayed = 0
          other = 0
          wrk.method = "POST"
          wrk.headers["Content-Type"] = "application/json"
        end
        function request()
          n = n + 1
          return wrk.format(nil, nil, nil, bodies[((n - 1) % #bodies) + 1])
        end
        function response(status, headers, body)
          if status == 200 and string.find(body, '"verified"', 1, true) then verified = verified + 1
          elseif status == 200 and string.find(body, 'verdictReplayed', 1, true) then replayed = replayed + 1
          else other = other + 1 end
        end
        function done(summary, latency, requests)
          local v, r, o = 0, 0, 0
          for _, t in ipairs(threads) do v = v + t:get("verified"); r = r + t:get("replayed"); o = o + t:get("other") end
          io.write(string.format("verified: %d, replayed: %d, other: %d\\n", v, r, o))
        end
        """
    }
}
