import AttestationTesting
import ChildProcess
import Crypto
import Foundation
import JSON
import PostgreSQL
import Simulator
import Testing
import TestThreads
import ThrowawayPostgres
import TestSupport

/// Three `gatehouse serve` on one PostgreSQL database, as behind a load balancer, over real sockets: nothing
/// single-use is used twice whichever server receives it, a change through one is what the others judge by within a
/// second, a server killed under load loses nothing it acknowledged, and PostgreSQL going away and coming back is
/// answered with 503s, then served again without a restart.
@Suite("Many servers on one PostgreSQL", .serialized, .enabled(if: !ThrowawayPostgres.endToEnd, "on PostgreSQL in every pass already"), .needsSyntheticCA)
struct MultiServerTests {
    static let appId = "ABCDE12345.com.example.app"

    /// Three servers on a new database of the throwaway PostgreSQL (the first migrates and makes the token).
    static func three(_ extra: [String] = []) throws -> [DeviceServer] {
        let first = try DeviceServer(extra, postgres: true)
        return [first, try DeviceServer(sharing: first, extra), try DeviceServer(sharing: first, extra)]
    }

    @Test func serversStartedTogetherOnAnEmptyDatabaseMigrateOnceAndShareOneReceiptKey() throws {
        let throwaway = try ThrowawayPostgres.database()
        let key = ThrowawayPostgres.masterKey()
        let temporary = try TemporaryDirectory("gatehouse-together")
        let directory = temporary.path
        // All three spawned before any is waited for: they start together.
        let processes = try (0..<3).map { i in
            try GatehouseServe.start(["--database", throwaway.url, "--master-key", key], log: "\(directory)/serve\(i).log")
        }
        defer { for process in processes { process.kill(SIGKILL); _ = process.finish(timeout: 10) } }
        let clients = try processes.map { try GatehouseServe.client(of: $0) }
        let applied = processes.map { $0.standardError.components(separatedBy: "\"migration applied\"").count - 1 }
        let migrations = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/Migrations/postgresql").filter { $0.hasSuffix(".sql") }.count
        #expect(applied.reduce(0, +) == migrations, "each migration applied once in all: \(applied)")
        let jwks = try clients.map { try $0.send("GET", "/api/v4/receipts/keys").text }
        #expect(Set(jwks).count == 1, "every server publishes the same JWKS")
        #expect(try JSONParser.parse(jwks[0])["keys"]?.array?.count == 1)
        for client in clients { #expect(try client.send("GET", "/readyz").status == 200) }
    }

    @Test func aChallengeIsConsumedOnceWhicheverServerIssuedOrReceivesIt() throws {
        let servers = try Self.three()
        let (environment, publicKey) = try servers[0].environment(kind: "production", appIds: [Self.appId])
        let challenge = try servers[0].challenge(publicKey)
        let first = try DeviceServer.ca().attest(appId: Self.appId, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        #expect(try servers[1].register(first, publicKey: publicKey, challenge: challenge).verdict == "verified")
        let second = try DeviceServer.ca().attest(appId: Self.appId, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        #expect(try servers[2].register(second, publicKey: publicKey, challenge: challenge).verdict == "rejected challengeInvalid")

        // Twenty copies of one assertion over the three servers: exactly one is verified.
        let assertion = try first.assertion(counter: 1, clientData: Array("GET /orders".utf8))
        let body = JSON.object([.init("apiKey", .string(publicKey)), .init("keyId", .string(Base64.encode(first.keyId))),
                                .init("clientData", .string(Base64.encode(Array("GET /orders".utf8)))),
                                .init("assertion", .string(Base64.encode(assertion)))])
        let clients = servers.map(\.client)
        let verdicts = concurrently(20) { i in
            (try? clients[i % 3].send("POST", "/api/v4/attestation/app-attest/assertion", headers: [("Content-Type", "application/json")],
                                      body: body.serialized()).verdict) ?? "no answer"
        }
        #expect(verdicts.filter { $0 == "verified" }.count == 1, "\(verdicts)")
        #expect(verdicts.filter { $0 == "forged counterReused" }.count == 19, "\(verdicts)")

        // The verdicts of all three servers are in one checklist (each server writes its own within a second).
        _ = try #require(waitUntil(seconds: 10) {
            let items = try servers[0].checklist(environment)["items"]?.array ?? []
            let item = items.first { $0["id"]?.string == "apple.noAppIds" }
            return (item?["evidence"]?["verdicts"]?.integer ?? 0) == 22
        }, "the checklist never counted the 22 verdicts written through three servers")
    }

    @Test func aSignedRequestReplayedOnAnotherServerIsReplayed() throws {
        let servers = try Self.three()
        let (_, publicKey) = try servers[0].environment(kind: "production", appIds: [Self.appId])
        let key = try servers[0].registeredKey(publicKey: publicKey)
        let envelope = try AssessFixture.ios(publicKey)
        let body = try AssessFixture.withAssertion(envelope, key: key, counter: 1)
        #expect(try servers[1].assess(body).assessed == "verified")
        let replayed = try servers[2].assess(body)
        #expect(replayed.tampering == ["replayed"])
        #expect(replayed.assessed == "rejected requestReplayed")
    }

    @Test func aConsumeRoutesReceiptPassesTheEdgeOnceAcrossServers() throws {
        let servers = try Self.three()
        let (environment, publicKey, secret) = try servers[0].newEnvironment(kind: "production")
        try servers[0].patch(environment, ["enforcement": ["mode": "enforce", "routes": [["name": "pay", "match": "POST /api/pay", "consume": true]]]])
        let token = try #require(try servers[1].assess(AssessFixture.ios(publicKey).json(attestation: nil)).json?["sessionToken"]?.string)
        // Every server has the route (the patch reaches the others within a second).
        for server in servers {
            let seconds = try waitUntil(seconds: 10) {
                try server.client.send("GET", "/api/v4/edge/nginx", headers: [("Authorization", "Bearer " + secret), ("X-Original-Method", "POST"),
                                                                              ("X-Original-URI", "/api/pay")]).header("Gatehouse-Route") == "pay"
            }
            #expect(seconds != nil, "the route never reached a server")
        }
        let clients = servers.map(\.client)
        let statuses = concurrently(12) { i in
            (try? clients[i % 3].send("GET", "/api/v4/edge/nginx", headers: [("Authorization", "Bearer " + secret), ("antibot-token", token),
                                                                            ("X-Original-Method", "POST"), ("X-Original-URI", "/api/pay")]).status) ?? -1
        }
        #expect(statuses.filter { $0 == 204 }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0 == 401 }.count == 11, "\(statuses)")
    }

    @Test func attackModeAndARevokedKeyThroughOneServerAreWhatTheOthersJudgeByWithinASecond() throws {
        let servers = try Self.three()
        let (environment, publicKey) = try servers[0].environment(kind: "production", appIds: [Self.appId])
        func attackMode(on server: DeviceServer) throws -> String? {
            try server.assess(AssessFixture.ios(publicKey).json(attestation: nil)).json?["attackMode"]?.string
        }
        // Each server has the environment cached (it judged a request with it).
        for server in servers { #expect(try attackMode(on: server) == "off") }
        try servers[0].patch(environment, ["attackMode": true])
        for server in servers.dropFirst() {
            // Designed to take at most a second (a NOTIFY, or the next look); 10 s allows for a loaded machine.
            let seconds = try waitUntil(seconds: 10) { try attackMode(on: server) == "unproven" }
            #expect(seconds != nil, "attack mode never reached another server")
        }
        // A public key revoked through the first server is refused by the others.
        let keys = try servers[0].client.send("GET", "/api/management/v1/environments/\(environment)/keys",
                                              headers: [("Authorization", "Bearer " + servers[0].token)])
        let keyID = try #require(keys.json?["keys"]?.array?.first { $0["value"]?.string == publicKey }?["id"]?.string)
        let revoked = try servers[0].client.send("DELETE", "/api/management/v1/environments/\(environment)/keys/\(keyID)",
                                                 headers: [("Authorization", "Bearer " + servers[0].token)])
        #expect(revoked.status == 204)
        for server in servers.dropFirst() {
            let seconds = try waitUntil(seconds: 10) { try server.challengeStatus(publicKey) == 401 }
            #expect(seconds != nil, "the revoked key was never refused by another server")
        }
    }

    /// A server whose listening connection is lost while PostgreSQL refuses new connections (a restart under load,
    /// connections at their limit) still follows the others: it reads the revisions through its pool, and a cache
    /// that decides access is not trusted past 3 seconds without a completed look. A key revoked through the other
    /// server is refused (or answered 503) within 3 seconds, and still refused once connections are allowed again.
    @Test func aServerThatCannotListenStillFollowsWithinThreeSeconds() throws {
        let first = try DeviceServer([], postgres: true)
        let second = try DeviceServer(sharing: first)
        let (environment, publicKey) = try first.environment(kind: "production", appIds: [Self.appId])
        #expect(try second.challengeStatus(publicKey) == 201)  // the key is cached on the second server now
        let database = try #require(first.postgres)
        let name = try #require(database.url.split(separator: "/").last?.split(separator: "?").first.map(String.init))
        // From the server's own database: a database cannot refuse connections to itself.
        let admin = try PostgresConnection(url: try ThrowawayPostgres.serverURL())
        try admin.script("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
        defer { try? admin.script("ALTER DATABASE \(name) ALLOW_CONNECTIONS true") }
        let listeners = try admin.query("SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = ? AND query LIKE 'LISTEN%'",
                                        [.text(name)])
        #expect(listeners.count == 2, "each server listens on one connection of its own")

        let keys = try first.client.send("GET", "/api/management/v1/environments/\(environment)/keys", headers: [("Authorization", "Bearer " + first.token)])
        let keyID = try #require(keys.json?["keys"]?.array?.first { $0["value"]?.string == publicKey }?["id"]?.string)
        let revoked = try first.client.send("DELETE", "/api/management/v1/environments/\(environment)/keys/\(keyID)",
                                            headers: [("Authorization", "Bearer " + first.token)])
        #expect(revoked.status == 204)
        // The bound is 3 s without a completed look; the test allows 5 on a loaded machine (typically it takes
        // milliseconds: a lost listener empties every cache at the next look).
        let seconds = try waitUntil(seconds: 5) { [401, 503].contains(try second.challengeStatus(publicKey)) }
        #expect(seconds != nil, "the second server kept honouring a key revoked on the first while it could not listen")

        try admin.script("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
        #expect(try waitUntil(seconds: 5) { try second.challengeStatus(publicKey) == 401 } != nil)
        // It stays refused (a look once the listener is back must not bring the old key back).
        for _ in 0..<5 {
            #expect(try second.challengeStatus(publicKey) == 401)
            usleep(200_000)
        }
    }

    @Test func aServerKilledUnderLoadLosesNothingItAcknowledged() throws {
        let servers = try Self.three()
        let (_, publicKey) = try servers[0].environment(kind: "production", appIds: [Self.appId])
        let key = try servers[0].registeredKey(publicKey: publicKey)
        // Load on all three, each server its own counters; the third is killed with SIGKILL meanwhile.
        let clientData = Array("GET /orders".utf8)
        let bodies: [[(counter: UInt32, body: JSON)]] = try (0..<3).map { i in
            try (0..<30).map { n in
                let counter = UInt32(1 + i * 1000 + n)
                let assertion = try key.assertion(counter: counter, clientData: clientData)
                return (counter, JSON.object([.init("apiKey", .string(publicKey)), .init("keyId", .string(Base64.encode(key.keyId))),
                                              .init("clientData", .string(Base64.encode(clientData))), .init("assertion", .string(Base64.encode(assertion)))]))
            }
        }
        let clients = servers.map(\.client), victim = servers[2].process.pid
        let results = concurrently(3) { i -> (verdicts: [String], acknowledged: [UInt32]) in
            var verdicts: [String] = [], acknowledged: [UInt32] = []
            for (n, request) in bodies[i].enumerated() {
                if i == 2 && n == 10 { kill(victim, SIGKILL) }
                guard let answer = try? clients[i].send("POST", "/api/v4/attestation/app-attest/assertion",
                                                        headers: [("Content-Type", "application/json")], body: request.body.serialized())
                else { continue }
                verdicts.append(answer.verdict)
                if answer.verdict == "verified" { acknowledged.append(request.counter) }
            }
            return (verdicts, acknowledged)
        }
        #expect(results[0].verdicts.count == 30 && results[1].verdicts.count == 30, "the others kept answering")
        #expect(results[2].verdicts.count < 30, "the third was killed")
        let counters = results[2].acknowledged
        #expect(!counters.isEmpty)
        // What the killed server acknowledged is spent: sent again to a live server, it is reused (or fell behind the
        // window the others moved on).
        for counter in counters {
            let again = try servers[0].assert(key, counter: counter, publicKey: publicKey).verdict
            #expect(again == "forged counterReused" || again == "rejected counterRegression", "counter \(counter): \(again)")
        }
    }

    @Test func postgresStoppedAndStartedUnderTheServersIsAnsweredWith503sThenServedAgain() throws {
        let cluster = try ThrowawayPostgres.Cluster()
        let url = try cluster.database("gatehouse")
        let first = try DeviceServer(postgresURL: url)
        let second = try DeviceServer(sharing: first)
        let (_, publicKey) = try first.environment(kind: "production", appIds: [Self.appId])
        #expect(try second.challengeStatus(publicKey) == 201)
        try cluster.stop()
        for server in [first, second] {
            let started = ContinuousClock.now
            let answer = try server.post("/challenge", ["apiKey": .string(publicKey)])
            #expect(answer.status == 503, "\(answer.status): \(answer.text)")
            #expect(answer.header("Retry-After") != nil)
            #expect(ContinuousClock.now - started < .seconds(10), "answered within the connect timeout, never a hang")
            #expect(try server.client.send("GET", "/readyz").status == 503)
        }
        try cluster.start()
        for server in [first, second] {
            let seconds = try waitUntil(seconds: 10) { try server.challengeStatus(publicKey) == 201 }
            #expect(seconds != nil, "served again without a restart")
            #expect(try server.client.send("GET", "/readyz").status == 200)
        }
    }
}

extension DeviceServer {
    /// The status of a challenge request with `publicKey` (201 issued, 401 refused key, 503 database unavailable).
    func challengeStatus(_ publicKey: String) throws -> Int {
        try post("/challenge", ["apiKey": .string(publicKey)]).status
    }
}
