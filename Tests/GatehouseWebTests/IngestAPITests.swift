import Foundation
@testable import Gatehouse
import GatehouseTesting
import HTTP
import JSON
import SQLite
import Storage
import Testing
import ThrowawayPostgres

/// Verdict ingest and the checklist it feeds.
@Suite("Ingest and checklist")
struct IngestAPITests {
    let app: TestApp
    let auth: Headers
    let environmentID: String
    let ingestAuth: Headers

    init() throws {
        app = try TestApp()
        auth = ["Authorization": "Bearer " + (try app.token())]
        let created = app.send("POST", "/api/management/v1/environments", json: ["name": "P", "kind": "production"], headers: auth).json
        environmentID = created?["id"]?.string ?? ""
        let secret = created?["keys"]?.array?.compactMap { $0["secret"]?.string }.first ?? ""
        ingestAuth = ["Authorization": "Bearer " + secret]
    }

    func verdict(_ status: String = "rejected", reasons: [String] = ["certificateMismatch"], digest: String? = nil, at: Int64? = nil) -> JSON {
        var observed: [JSON.Member] = [.init("packageName", "com.example.app")]
        if let digest { observed.append(.init("certificateDigest", .string(digest))) }
        return .object([
            .init("at", .string(Timestamp.format(at ?? app.clock.now - 600))),
            .init("platform", "android"), .init("provider", "play-integrity"), .init("status", .string(status)),
            .init("reasons", .array(reasons.map { .string($0) })), .init("observed", .object(observed)),
        ])
    }

    @discardableResult
    func post(_ verdicts: [JSON], headers: Headers? = nil) -> TestResponse {
        app.send("POST", "/api/ingest/v1/verdicts", json: ["verdicts": .array(verdicts)], headers: headers ?? ingestAuth)
    }

    func rawCount() throws -> Int {
        try app.application.domain.store.database.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM verdicts")?.int("n") ?? -1 }
    }

    @Test func authentication() throws {
        #expect(post([verdict()], headers: Headers()).status == 401)
        #expect(post([verdict()], headers: auth).status == 401)  // a management token is not a secret key
        let publicKey = try #require(try app.application.domain.keys.list(environmentID: environmentID).first { $0.type == .public }?.publicValue)
        #expect(post([verdict()], headers: ["Authorization": "Bearer " + publicKey]).status == 401)
        let r = post([verdict()])
        #expect(r.status == 202)
        #expect(r.json?["accepted"]?.integer == 1)
    }

    @Test func batchIsValidatedWholeAndStoredAtomically() throws {
        var bad = verdict()
        if case .object(var members) = bad {
            members.removeAll { $0.key == "platform" }
            members.append(.init("platform", "windows"))
            bad = .object(members)
        }
        let r = post([verdict(), bad, verdict(digest: "nope"), verdict(at: app.clock.now - 9 * 86_400), verdict(at: app.clock.now + 600)])
        #expect(r.status == 422)
        let pointers = try #require(r.json?["errors"]?.array).compactMap { $0["pointer"]?.string }
        #expect(pointers == ["/verdicts/1/platform", "/verdicts/2/observed/certificateDigest", "/verdicts/3/at", "/verdicts/4/at"])
        #expect(try rawCount() == 0)
        #expect(post([]).status == 422)
        #expect(post(Array(repeating: verdict(), count: 1001)).status == 422)
        #expect(try rawCount() == 0)
    }

    @Test func idempotencyKeyCountsOnce() throws {
        var headers = ingestAuth
        headers.set("Idempotency-Key", "batch-1")
        #expect(post([verdict(), verdict()], headers: headers).json?["accepted"]?.integer == 2)
        #expect(post([verdict(), verdict()], headers: headers).json?["accepted"]?.integer == 2)
        #expect(try rawCount() == 2)
        headers.set("Idempotency-Key", "batch-2")
        post([verdict()], headers: headers)
        #expect(try rawCount() == 3)
    }

    @Test func rollupsAgreeWithRawCounts() throws {
        let digest = String(repeating: "cd", count: 32)
        var batch: [JSON] = []
        for i in 0..<300 {
            let at = app.clock.now - Int64(i) * 1800
            switch i % 3 {
            case 0: batch.append(verdict("verified", reasons: [], at: at))
            case 1: batch.append(verdict(reasons: ["certificateMismatch", "deviceIntegrityNotMet"], digest: digest, at: at))
            default: batch.append(verdict(reasons: ["certificateMismatch"], digest: Data(repeating: 0xCD, count: 32).base64EncodedString(), at: at))
            }
        }
        #expect(post(batch).status == 202)
        let database = app.application.domain.store.database
        try database.read { db in
            let raw = try db.query("SELECT status, COUNT(*) AS n FROM verdicts GROUP BY status")
            let rolled = try db.query("SELECT status, SUM(count) AS n FROM verdict_rollups WHERE reason = '' GROUP BY status")
            #expect(try raw.map { "\(try $0.text("status")):\(try $0.int("n"))" } == rolled.map { "\(try $0.text("status")):\(try $0.int("n"))" })
            let rawMismatch = try db.queryOne("SELECT COUNT(*) AS n FROM verdicts WHERE reasons LIKE '%certificateMismatch%'")?.int("n")
            let rolledMismatch = try db.queryOne("SELECT SUM(count) AS n FROM verdict_rollups WHERE reason = 'certificateMismatch'")?.int("n")
            #expect(rawMismatch == 200)
            #expect(rolledMismatch == rawMismatch)
            let observed = try db.query("SELECT value, SUM(count) AS n FROM verdict_observed_rollups WHERE reason = 'certificateMismatch' AND field = 'certificateDigest' GROUP BY value")
            #expect(observed.count == 1)  // two encodings, one normalized digest
            #expect(try observed.first?.text("value") == Array(repeating: "CD", count: 32).joined(separator: ":"))
            #expect(try observed.first?.int("n") == 200)
        }
    }

    /// Retention deletes exactly the raw verdicts older than 8 days, also inside the hour the cutoff falls in (the
    /// delete goes through the hour index, then compares exact times), and leaves the rollups alone.
    @Test func pruneDeletesRawVerdictsPastRetentionOnly() throws {
        let start = app.clock.now
        #expect(post([
            verdict(at: start - 7200 - start % 3600 - 1),  // the hour before the cutoff's hour: deleted
            verdict(at: start - 7200),  // in the cutoff's hour, one second before the cutoff: deleted
            verdict(at: start - 7199),  // exactly at the cutoff: kept
            verdict(at: start - 600),
        ]).status == 202)
        let other = app.send("POST", "/api/management/v1/environments", json: ["name": "Q", "kind": "development"], headers: auth).json
        let otherSecret = try #require(other?["keys"]?.array?.compactMap { $0["secret"]?.string }.first)
        #expect(post([verdict(at: start - 86_400), verdict(at: start)], headers: ["Authorization": "Bearer " + otherSecret]).status == 202)
        app.clock.advance(by: Verdicts.rawRetention - 7199)
        #expect(try app.application.domain.verdicts.prune() == 3)
        #expect(try rawCount() == 3)
        let rolled = try app.application.domain.store.database.read { db in
            try db.queryOne("SELECT SUM(count) AS n FROM verdict_rollups WHERE reason = ''")?.int("n")
        }
        #expect(rolled == 6)
        #expect(try app.application.domain.verdicts.prune() == 0)
        // Retention's delete, and deleting an environment, search the environment and hour index rather than scan
        // every raw verdict (SQLite's plans; the PostgreSQL pass has its own planner).
        guard !ThrowawayPostgres.endToEnd else { return }
        let plans = try app.application.domain.store.database.write { db in
            let statements: [(String, [SQLValue])] = [
                ("DELETE FROM verdicts WHERE environment_id = ? AND at / 3600 <= ? AND at < ?", ["env", 1, 2]),
                ("DELETE FROM environments WHERE id = ?", ["env"]),
            ]
            return try statements.map { sql, arguments in try db.query("EXPLAIN QUERY PLAN " + sql, arguments).map { try $0.text("detail") } }
        }
        #expect(plans[0].contains { $0.contains("verdicts USING INDEX verdicts_by_environment_hour (environment_id=? AND <expr><?)") })
        #expect(plans[1].contains { $0.contains("verdicts USING COVERING INDEX verdicts_by_environment_hour (environment_id=?)") })
    }

    @Test func checklistSeesEachNewBatchAndTheHourTurning() throws {
        let path = "/api/management/v1/environments/\(environmentID)/checklist"
        func failing() -> Int? {
            app.send("GET", path, headers: auth).json?["items"]?.array?.first { $0["id"]?.string == "android.certificateNotRegistered" }?["evidence"]?["failing"]?.integer
        }
        #expect(failing() == 0)
        post((0..<30).map { _ in verdict(digest: String(repeating: "ab", count: 32)) })
        #expect(failing() == 30)  // the cached week was dropped by the ingest
        post((0..<5).map { _ in verdict(digest: String(repeating: "ab", count: 32)) })
        #expect(failing() == 35)
        for _ in 0..<3 {  // later in the same hour, and in the next ones, from the cache or not: the same week
            app.clock.advance(by: 1500)
            #expect(failing() == 35)
        }
        app.clock.advance(by: 8 * 86_400)  // a week later every verdict has left the window
        #expect(failing() == 0)
    }

    @Test func checklistNamesTheUnregisteredCertificate() throws {
        let registered = String(repeating: "11", count: 32)
        let seen = Array(repeating: "CD", count: 32).joined(separator: ":")
        app.send("PATCH", "/api/management/v1/environments/\(environmentID)", json: [
            "androidApps": [["packageName": "com.example.app", "certificateDigests": .array([.string(registered)])]],
        ], headers: auth)
        var batch = (0..<40).map { _ in verdict(digest: seen) }
        batch += (0..<10).map { _ in verdict("verified", reasons: []) }
        #expect(post(batch).status == 202)
        let r = app.send("GET", "/api/management/v1/environments/\(environmentID)/checklist", headers: auth)
        #expect(r.status == 200)
        let items = try #require(r.json?["items"]?.array)
        let item = try #require(items.first { $0["id"]?.string == "android.certificateNotRegistered" })
        #expect(item["status"]?.string == "fail")
        #expect(item["evidence"]?["failing"]?.integer == 40)
        #expect(item["evidence"]?["verdicts"]?.integer == 50)
        #expect(item["evidence"]?["observed"]?.array?.first?["value"]?.string == seen)
        #expect(item["detail"]?.string?.contains("upload key") == true)
        #expect(items.first?["status"]?.string == "fail")
        #expect(r.json?["window"]?["from"]?.string != nil)
    }
}
