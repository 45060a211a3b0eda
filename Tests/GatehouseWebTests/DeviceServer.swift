import TestSupport
import Attestation
import AttestationTesting
import ChildProcess
import Crypto
import Foundation
import GatehouseTesting
import JSON
import Simulator
import Testing
import ThrowawayPostgres

/// A real `gatehouse serve` on port 0 over a fresh SQLite file (or, in `make test`'s PostgreSQL pass, a new database of
/// the throwaway PostgreSQL, with a master key given), trusting a synthetic App Attest root, with a management token to
/// set environments up: what the device API tests drive over a loopback socket.
final class DeviceServer {
    let directory: String
    let database: String
    let rootsFile: String
    let token: String
    /// The PostgreSQL database in the PostgreSQL pass (dropped with this value); nil on SQLite.
    let postgres: ThrowawayPostgres.Database?
    /// What every command run on the database is given besides its own arguments: the database, the resources, and on
    /// PostgreSQL the master key.
    let databaseArguments: [String]
    let extraArguments: [String]
    private(set) var process: ChildProcess
    private(set) var client: PlainHTTP

    /// The synthetic CA the servers trust, made once (it runs `openssl`).
    static let authority: Result<SyntheticAppAttest, any Error> = Result { try SyntheticAppAttest() }

    static func ca() throws -> SyntheticAppAttest { try authority.get() }

    /// Starts a server on a new database trusting the synthetic root, after creating a write token with the CLI; on
    /// PostgreSQL in the PostgreSQL pass, or when `postgres` says so.
    /// `postgresURL` names a database made elsewhere (a cluster of the test's own) to serve on.
    init(_ extraArguments: [String] = [], postgres onPostgres: Bool = ThrowawayPostgres.endToEnd, postgresURL: String? = nil) throws {
        directory = NSTemporaryDirectory() + "gatehouse-device-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let postgresURL {
            postgres = nil
            database = postgresURL
            databaseArguments = ["--database", database, "--resources", repositoryRoot, "--master-key", ThrowawayPostgres.masterKey()]
        } else if onPostgres {
            let throwaway = try ThrowawayPostgres.database()
            postgres = throwaway
            database = throwaway.url
            databaseArguments = ["--database", database, "--resources", repositoryRoot, "--master-key", ThrowawayPostgres.masterKey()]
                + (ThrowawayPostgres.pooled ? ["--database-prepared-statements", "off"] : [])
        } else {
            postgres = nil
            database = directory + "/gatehouse.sqlite"
            databaseArguments = ["--database", database, "--resources", repositoryRoot]
        }
        rootsFile = directory + "/roots.pem"
        try Self.ca().rootPEM.write(toFile: rootsFile, atomically: true, encoding: .utf8)
        try (try #require(try Self.ca().receipts)).rootPEM.write(toFile: Self.receiptRoots(rootsFile), atomically: true, encoding: .utf8)
        self.extraArguments = extraArguments
        let executable = try CommandRun.gatehouse()
        let cli = try ChildProcess(executable, ["token", "create", "--name", "device-tests", "--scope", "write"] + databaseArguments,
                                   standardErrorPath: directory + "/cli.log")
        let (code, lines) = cli.finish(timeout: 60)
        #expect(code == 0, "token create: \(cli.standardError)")
        token = try #require(lines.first { $0.hasPrefix("gtm_") })
        (process, client) = try Self.start(database: databaseArguments, roots: rootsFile, log: directory + "/serve.log",
                                           extra: extraArguments)
    }

    /// Starts another server on `first`'s PostgreSQL database, with its token and roots: a second server behind the
    /// same load balancer.
    init(sharing first: DeviceServer, _ extraArguments: [String] = []) throws {
        directory = NSTemporaryDirectory() + "gatehouse-device-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        postgres = nil  // the first server's, dropped with it
        database = first.database
        databaseArguments = first.databaseArguments
        rootsFile = first.rootsFile
        token = first.token
        self.extraArguments = extraArguments
        (process, client) = try Self.start(database: databaseArguments, roots: rootsFile,
                                           log: directory + "/serve.log", extra: extraArguments)
    }

    deinit {
        process.kill(SIGKILL)
        _ = process.finish(timeout: 10)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func start(database: [String], roots: String, log: String, extra: [String]) throws -> (ChildProcess, PlainHTTP) {
        let process = try GatehouseServe.start(database + ["--log-level", "warning", "--app-attest-roots", roots,
                                                           "--app-attest-receipt-roots", receiptRoots(roots)] + extra, log: log)
        return (process, try GatehouseServe.client(of: process))
    }

    /// The receipt roots file beside the roots file.
    static func receiptRoots(_ rootsFile: String) -> String {
        rootsFile.replacingOccurrences(of: "roots.pem", with: "receipt-roots.pem")
    }

    /// Stops the server with `signal` (SIGTERM: gracefully, expecting exit 0) and starts it again on the same file.
    func restart(after signal: Int32) throws {
        process.kill(signal)
        let (code, _) = process.finish(timeout: 30)
        if signal == SIGTERM { #expect(code == 0, "exit after SIGTERM; log: \(process.standardError)") }
        (process, client) = try Self.start(database: databaseArguments, roots: rootsFile,
                                           log: directory + "/serve.log", extra: extraArguments)
    }

    /// What the server logged on standard error.
    var log: String { process.standardError }

    /// Creates an environment of `kind`; returns its id, public key and secret key.
    func newEnvironment(kind: String) throws -> (id: String, publicKey: String, secretKey: String) {
        let auth = [("Authorization", "Bearer " + token), ("Content-Type", "application/json")]
        let created = try client.send("POST", "/api/management/v1/environments", headers: auth,
                                      body: Array(#"{"name": "Device \#(kind)", "kind": "\#(kind)"}"#.utf8))
        #expect(created.status == 201, "\(created.text)")
        let keys = created.json?["keys"]?.array ?? []
        return (try #require(created.json?["id"]?.string), try #require(keys.first { $0["type"]?.string == "public" }?["value"]?.string),
                try #require(keys.first { $0["type"]?.string == "secret" }?["secret"]?.string))
    }

    /// Creates an environment of `kind` registering `appIds`; returns its id and public key.
    func environment(kind: String, appIds: [String]) throws -> (id: String, publicKey: String) {
        let auth = [("Authorization", "Bearer " + token), ("Content-Type", "application/json")]
        let base = "/api/management/v1/environments"
        let (id, publicKey, _) = try newEnvironment(kind: kind)
        if !appIds.isEmpty {
            let patch = JSON.object([.init("appleAppIds", .array(appIds.map { .string($0) }))])
            let patched = try client.send("PATCH", "\(base)/\(id)", headers: auth, body: patch.serialized())
            #expect(patched.status == 200, "\(patched.text)")
        }
        return (id, publicKey)
    }

    /// The environment's checklist as the management API answers it.
    func checklist(_ environmentID: String) throws -> JSON {
        let response = try client.send("GET", "/api/management/v1/environments/\(environmentID)/checklist", headers: [("Authorization", "Bearer " + token)])
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json)
    }

    /// POSTs `body` as JSON to a device endpoint.
    func post(_ path: String, _ body: JSON) throws -> PlainHTTP.Response {
        try post(path, raw: body.serialized())
    }

    /// POSTs raw bytes as `application/json` to a device endpoint.
    func post(_ path: String, raw: [UInt8]) throws -> PlainHTTP.Response {
        try client.send("POST", "/api/v4/attestation" + path, headers: [("Content-Type", "application/json")], body: raw)
    }

    /// A fresh challenge for `publicKey`.
    func challenge(_ publicKey: String) throws -> String {
        let response = try post("/challenge", ["apiKey": .string(publicKey)])
        #expect(response.status == 201, "\(response.text)")
        return try #require(response.json?["challenge"]?.string)
    }

    /// Registers `key` with `challenge`; returns the response.
    func register(_ key: SyntheticKey, publicKey: String, challenge: String) throws -> PlainHTTP.Response {
        try post("/app-attest", ["apiKey": .string(publicKey), "keyId": .string(Base64.encode(key.keyId)), "challenge": .string(challenge),
                                 "attestation": .string(Base64.encode(key.attestation))])
    }

    /// Attests a new key for `appId` against a fresh challenge and registers it; returns the key and the response.
    func attestAndRegister(appId: String, publicKey: String, environment: AttestationEnvironment = .production) throws -> (SyntheticKey, PlainHTTP.Response) {
        let challenge = try self.challenge(publicKey)
        let key = try Self.ca().attest(appId: appId, clientDataHash: SHA256.hash(Array(challenge.utf8)), environment: environment)
        return (key, try register(key, publicKey: publicKey, challenge: challenge))
    }

    /// Sends an assertion by `key` with `counter` over `clientData`.
    func assert(_ key: SyntheticKey, counter: UInt32, publicKey: String, clientData: [UInt8] = Array("GET /orders".utf8)) throws -> PlainHTTP.Response {
        let assertion = try key.assertion(counter: counter, clientData: clientData)
        return try post("/app-attest/assertion", ["apiKey": .string(publicKey), "keyId": .string(Base64.encode(key.keyId)),
                                                  "clientData": .string(Base64.encode(clientData)), "assertion": .string(Base64.encode(assertion))])
    }
}

extension PlainHTTP.Response {
    /// The verdict's status and reasons, e.g. "forged counterReused" ("verified" alone when verified).
    var verdict: String {
        let status = json?["verdict"]?["status"]?.string ?? "no verdict (\(self.status): \(text))"
        let reasons = json?["verdict"]?["reasons"]?.array?.compactMap(\.string) ?? []
        return ([status] + reasons).joined(separator: " ")
    }
}
