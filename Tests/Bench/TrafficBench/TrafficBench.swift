import Crypto
import Foundation
import Gatehouse
import JSON
import SQLite
import Storage
import SeededRandom

/// The traffic bench (`make bench-traffic`), two modes:
/// - `setup DIR REPO`: a migrated database `DIR/db.sqlite` (master key from `GATEHOUSE_MASTER_KEY`) with one
///   environment, and `DIR/post.lua` + `DIR/body.json` for wrk: a batch of 1,000 verdicts of a realistic mix,
///   posted with the environment's secret key (Tests/Bench/traffic-bench.sh serves and drives it);
/// - `checklist REPO`: `ChecklistService.report(for:)` latency, median of 50 runs, with 10 thousand verdicts ingested
///   end to end, then 1 and 10 million verdicts' worth of rollup rows over the 168 hours of the window;
/// - `phases REPO`: where an ingested batch's time goes in-process, phase by phase (median of 200 batches of the
///   same 1,000-verdict body wrk posts): JSON parsing, validation, and `Verdicts.ingest`.
@main
struct TrafficBench {
    static func main() throws {
        let args = CommandLine.arguments
        switch args.count >= 3 ? args[1] : "" {
        case "setup" where args.count >= 4: try setup(directory: args[2], repository: args[3])
        case "checklist": try checklist(repository: args[2])
        case "phases": try phases(repository: args[2])
        default:
            FileHandle.standardError.write(Data("usage: TrafficBench setup DIR REPO | checklist REPO | phases REPO\n".utf8))
            exit(2)
        }
    }

    static let now = Int64(Date().timeIntervalSince1970)
    static let playDigest = CertificateDigest.format((0..<32).map { UInt8(($0 * 91 + 200) & 0xFF) })
    static let uploadDigest = CertificateDigest.format((0..<32).map { UInt8(($0 * 37 + 11) & 0xFF) })

    /// A domain over a new database at `path` with an environment (its clock stopped at `now` when given), and the
    /// database's file opened alone for rows written in bulk around the domain.
    static func open(_ path: String, repository: String, masterKey: [UInt8], now: Int64?) throws -> (Domain, Environment, String, Database) {
        var configuration = DomainConfiguration()
        configuration.resources = repository
        configuration.database = path
        configuration.masterKey = Base64.encode(masterKey)
        let domain = try Domain.open(configuration, clock: now.map { now in TimeSource(wall: { now }) } ?? .system)
        let (environment, keys) = try domain.environments.create(name: "Bench", kind: .production, actor: .system)
        var patch = EnvironmentPatch()
        patch.androidApps = .set([AndroidApp(packageName: "com.example.app", certificateDigests: [(0..<32).map { UInt8(($0 * 37 + 11) & 0xFF) }], outsidePlay: false)])
        patch.appleAppIDs = .set(["ABCDE12345.com.example.app"])
        let patched = try domain.environments.patch(environment.id, with: patch, actor: .system)
        return (domain, patched, keys.compactMap(\.secret).first ?? "", try Database(path: path))
    }

    /// The bench's batch of 1,000 verdicts as the JSON body wrk posts.
    static func body() -> [UInt8] {
        var random = SplitMix64(seed: 7)
        let items = (0..<1000).map { _ in json(verdict(at: now - Int64(random.next() % 86_400), roll: random.next() % 100)) }
        return Array(("{\"verdicts\": [" + items.joined(separator: ",") + "]}").utf8)
    }

    static func setup(directory: String, repository: String) throws {
        guard let text = ProcessInfo.processInfo.environment["GATEHOUSE_MASTER_KEY"], let key = Base64.decode(text) else {
            throw BenchError("set GATEHOUSE_MASTER_KEY to base64 of 32 bytes")
        }
        let (_, _, secret, _) = try open(directory + "/db.sqlite", repository: repository, masterKey: key, now: nil)
        try Data(body()).write(to: URL(fileURLWithPath: directory + "/body.json"))
        let lua = """
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        wrk.headers["Authorization"] = "Bearer \(secret)"
        local f = io.open("\(directory)/body.json", "rb")
        wrk.body = f:read("*a")
        f:close()
        local failed = 0
        response = function(status, headers, body)
          if status ~= 202 then failed = failed + 1 end
        end
        done = function(summary, latency, requests)
          io.write(string.format("non-202 responses: %d\\n", failed))
        end
        """
        try Data(lua.utf8).write(to: URL(fileURLWithPath: directory + "/post.lua"))
    }

    /// A verdict of the mix: 62% Play Integrity (most verified, a setup fault on a fifth, some device reasons),
    /// 38% App Attest (mostly verified).
    static func verdict(at: Int64, roll: UInt64) -> TrafficVerdict {
        var android = ["packageName": "com.example.app", "appRecognitionVerdict": "PLAY_RECOGNIZED", "appLicensingVerdict": "LICENSED", "certificateDigest": uploadDigest]
        let ios = ["appId": "ABCDE12345.com.example.app", "attestationEnvironment": "production"]
        switch roll {
        case 0..<36: return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "verified", reasons: [], observed: android)
        case 36..<50:
            android["certificateDigest"] = playDigest
            return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "rejected", reasons: ["certificateMismatch"], observed: android)
        case 50..<55: return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "rejected", reasons: ["deviceIntegrityNotMet", "virtualDevice"], observed: android)
        case 55..<58:
            android["appRecognitionVerdict"] = "UNRECOGNIZED_VERSION"
            android["appLicensingVerdict"] = "UNLICENSED"
            return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "rejected", reasons: ["appVerdict:UNRECOGNIZED_VERSION", "unlicensed"], observed: android)
        case 58..<61: return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "forged", reasons: ["requestMismatch"], observed: [:])
        case 61..<62: return TrafficVerdict(at: at, platform: "android", provider: "play-integrity", status: "unavailable", reasons: ["googleUnreachable"], observed: android)
        case 62..<96: return TrafficVerdict(at: at, platform: "ios", provider: "app-attest", status: "verified", reasons: [], observed: ios)
        case 96..<98: return TrafficVerdict(at: at, platform: "ios", provider: "app-attest", status: "rejected", reasons: ["counterRegression"], observed: ios)
        default: return TrafficVerdict(at: at, platform: "ios", provider: "app-attest", status: "forged", reasons: ["assertionInvalid"], observed: ios)
        }
    }

    static func json(_ v: TrafficVerdict) -> String {
        let observed = v.observed.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \"\($0.value)\"" }.joined(separator: ", ")
        let reasons = v.reasons.map { "\"\($0)\"" }.joined(separator: ", ")
        return "{\"at\": \"\(Timestamp.format(v.at))\", \"platform\": \"\(v.platform)\", \"provider\": \"\(v.provider)\", "
            + "\"status\": \"\(v.status)\", \"reasons\": [\(reasons)], \"observed\": {\(observed)}}"
    }

    static func checklist(repository: String) throws {
        let key = try SecureRandom.bytes(32)
        for size in [10_000, 1_000_000, 10_000_000] {
            let directory = NSTemporaryDirectory() + "traffic-bench-\(getpid())-\(size)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let (domain, environment, _, database) = try open(directory + "/db.sqlite", repository: repository, masterKey: key, now: now)
            let verdicts = domain.verdicts
            let checklists = domain.checklists
            var note = ""
            if size <= 100_000 {
                var random = SplitMix64(seed: 11)
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<(size / 1000) {
                    let batch = (0..<1000).map { _ in verdict(at: now - 1 - Int64(random.next() % UInt64(7 * 86_400 - 1)), roll: random.next() % 100) }
                    _ = try verdicts.ingest(batch, environmentID: environment.id)
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                note = String(format: "ingested in-process at %.0f verdicts/s", Double(size) / seconds)
            } else {
                note = "rollup rows written directly: " + String(try writeRollups(database, environmentID: environment.id, verdicts: size))
            }
            // Cold: the week's rollups read from SQLite and the checklist evaluated, as after an ingest.
            // Warm: `ChecklistService.report(for:)`, which serves the rollups from its cache until the next ingest.
            let configuration = ChecklistConfiguration(
                kind: environment.kind.rawValue,
                androidApps: environment.androidApps.map {
                    AndroidAppSetup(packageName: $0.packageName, certificateDigests: $0.certificateDigests.map(CertificateDigest.format), outsidePlay: $0.outsidePlay)
                },
                appleAppIds: environment.appleAppIDs, localKeysSet: environment.playIntegrity.localSet, activeSecretKeys: 1)
            var cold: [Double] = []
            var warm: [Double] = []
            var report: ChecklistReport?
            for _ in 0..<50 {
                var start = DispatchTime.now().uptimeNanoseconds
                report = Checklist.evaluate(configuration: configuration, rollups: try verdicts.weekRollups(environmentID: environment.id, now: now), now: now)
                cold.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
                start = DispatchTime.now().uptimeNanoseconds
                _ = try checklists.report(for: environment)
                warm.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
            }
            cold.sort()
            warm.sort()
            let counted = report?.item("android.noApps")?.evidence.verdicts ?? 0
            print(String(format: "checklist %@ verdicts: cold median %.0f µs, p90 %.0f µs; cached median %.0f µs (%@; Play Integrity verdicts seen: %d; certificateNotRegistered: %@)",
                         Checklist.number(size), cold[25], cold[45], warm[25], note, counted,
                         report?.item("android.certificateNotRegistered")?.status.rawValue ?? "?"))
        }
    }

    /// `verdicts` verdicts' worth of hourly rollups over the window, in the bench mix; returns the rows written.
    static func writeRollups(_ database: Database, environmentID: String, verdicts: Int) throws -> Int {
        // (provider, status, reasons, share in 1/100, observed values per reason)
        let android = [("packageName", "com.example.app"), ("appRecognitionVerdict", "PLAY_RECOGNIZED"), ("appLicensingVerdict", "LICENSED")]
        let ios = [("appId", "ABCDE12345.com.example.app"), ("attestationEnvironment", "production")]
        let mix: [(String, String, [String], Int, [(String, String)])] = [
            ("play-integrity", "verified", [], 36, []),
            ("play-integrity", "rejected", ["certificateMismatch"], 14, android + [("certificateDigest", playDigest)]),
            ("play-integrity", "rejected", ["deviceIntegrityNotMet", "virtualDevice"], 5, android + [("certificateDigest", uploadDigest)]),
            ("play-integrity", "rejected", ["appVerdict:UNRECOGNIZED_VERSION", "unlicensed"], 3, [("packageName", "com.example.app"), ("certificateDigest", uploadDigest)]),
            ("play-integrity", "forged", ["requestMismatch"], 3, []),
            ("play-integrity", "unavailable", ["googleUnreachable"], 1, android),
            ("app-attest", "verified", [], 34, []),
            ("app-attest", "rejected", ["counterRegression"], 2, ios),
            ("app-attest", "forged", ["assertionInvalid"], 2, ios),
        ]
        let perHour = verdicts / 168
        var rows = 0
        try database.write { db in
            for h in 0..<168 {
                let hour = (now - now % 3600) - Int64(h) * 3600
                var statusTotals: [String: [String: Int]] = [:]
                for (provider, status, reasons, share, observed) in mix {
                    let n = perHour * share / 100
                    statusTotals[provider, default: [:]][status, default: 0] += n
                    for reason in reasons {
                        try db.execute("INSERT INTO verdict_rollups (environment_id, hour, provider, status, reason, count) VALUES (?, ?, ?, ?, ?, ?)",
                                       [.text(environmentID), .integer(hour), .text(provider), .text(status), .text(reason), .integer(Int64(n))])
                        rows += 1
                        // As ingest does: observed values are kept for setup reasons only.
                        for (field, value) in observed where SetupReason(reason: reason, provider: provider) != nil {
                            try db.execute("INSERT INTO verdict_observed_rollups (environment_id, hour, provider, status, reason, field, value, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                           [.text(environmentID), .integer(hour), .text(provider), .text(status), .text(reason), .text(field), .text(value), .integer(Int64(n))])
                            rows += 1
                        }
                    }
                }
                for (provider, statuses) in statusTotals {
                    for (status, n) in statuses {
                        try db.execute("INSERT INTO verdict_rollups (environment_id, hour, provider, status, reason, count) VALUES (?, ?, ?, ?, '', ?)",
                                       [.text(environmentID), .integer(hour), .text(provider), .text(status), .integer(Int64(n))])
                        rows += 1
                    }
                }
            }
        }
        return rows
    }

    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
