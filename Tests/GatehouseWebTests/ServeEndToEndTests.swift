import ChildProcess
import Foundation
import Gatehouse
import GatehouseTesting
import Simulator
import Testing
import TestSupport

/// The real `gatehouse` binary over a real socket and a real SQLite file: a token made with the CLI, seed 003's
/// setup PATCH over HTTP, a graceful SIGTERM, and the same state read back after a restart.
@Suite("gatehouse serve end to end", .serialized)
struct ServeEndToEndTests {
    /// A running `gatehouse serve` on port 0.
    struct Server {
        let process: ChildProcess
        let client: PlainHTTP

        init(database: String, directory: String) throws {
            process = try GatehouseServe.start(["--database", database, "--resources", repositoryRoot, "--log-level", "warning"],
                                               log: directory + "/serve.log")
            client = try GatehouseServe.client(of: process)
        }

        /// SIGTERM, then expects a graceful stop: exit code 0 after "gatehouse stopped".
        func stop() {
            process.kill(SIGTERM)
            let (code, lines) = process.finish(timeout: 30)
            #expect(code == 0, "exit code after SIGTERM; log: \(process.standardError)")
            #expect(lines.last == "gatehouse stopped", "stdout after SIGTERM: \(lines)")
        }
    }

    @Test func seed003SetupSurvivesARestart() throws {
        let executable = try CommandRun.gatehouse()
        let temporary = try TemporaryDirectory("gatehouse-e2e")
        let directory = temporary.path
        let database = directory + "/gatehouse.sqlite"

        // A write token from the CLI, printed once on stdout.
        let cli = try ChildProcess(executable, ["token", "create", "--name", "e2e", "--scope", "write", "--database", database,
                                                "--resources", repositoryRoot], standardErrorPath: directory + "/cli.log")
        let (cliCode, cliLines) = cli.finish(timeout: 60)
        #expect(cliCode == 0, "token create: \(cli.standardError)")
        let token = try #require(cliLines.first { $0.hasPrefix("gtm_") }, "token create printed \(cliLines)")
        let auth = [("Authorization", "Bearer " + token)]
        let json = auth + [("Content-Type", "application/json")]
        let base = "/api/management/v1"

        let first = try Server(database: database, directory: directory)
        #expect(try first.client.send("GET", "/healthz").text == "ok\n")

        // A second server on the same database refuses to start: the first one serves from memory what it wrote.
        let rival = try GatehouseServe.start(["--database", database, "--resources", repositoryRoot], log: directory + "/second.log")
        let (rivalCode, _) = rival.finish(timeout: 30)
        #expect(rivalCode != 0 && rivalCode != nil)
        #expect(rival.standardError.contains("another gatehouse serve (pid \(first.process.pid)) is using"), "\(rival.standardError)")
        #expect(try first.client.send("GET", "\(base)/environments").status == 401)

        let created = try first.client.send("POST", "\(base)/environments", headers: json, body: Array(#"{"name": "Production", "kind": "production"}"#.utf8))
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.json?["id"]?.string)
        #expect(created.header("Location") == "\(base)/environments/\(id)")

        // Seed 003's setup: an app with a digest, both Play Integrity credentials (real keys), an App Attest app id.
        let digestBytes: [UInt8] = (0..<32).map { UInt8(($0 * 37 + 11) & 0xFF) }
        let colonHex = digestBytes.map { String(format: "%02X", $0) }.joined(separator: ":")
        let privateKey = try TestKeys.rsaPrivateKeyPEM()
        let decryptionKey = TestKeys.aesKeyBase64()
        let verificationKey = try TestKeys.ecPublicKeyBase64()
        let patchBody = """
        {
          "androidApps": [
            { "packageName": "com.example.app", "certificateDigests": ["\(colonHex.lowercased().replacingOccurrences(of: ":", with: ""))"] }
          ],
          "playIntegrity": {
            "serviceAccount": \(TestKeys.serviceAccountJSON(privateKeyPEM: privateKey)),
            "local": { "decryptionKey": "\(decryptionKey)", "verificationKey": "\(verificationKey)" }
          },
          "appleAppIds": ["ABCDE12345.com.example.yourapp"]
        }
        """
        let patched = try first.client.send("PATCH", "\(base)/environments/\(id)", headers: auth + [("Content-Type", "application/merge-patch+json")], body: Array(patchBody.utf8))
        #expect(patched.status == 200, "\(patched.text)")
        let state = try #require(patched.json)
        let etag = try #require(patched.header("ETag"))
        #expect(state["androidApps"] == [["packageName": "com.example.app", "certificateDigests": .array([.string(colonHex)]), "outsidePlay": false]])
        #expect(state["appleAppIds"] == ["ABCDE12345.com.example.yourapp"])
        #expect(state["playIntegrity"]?["serviceAccount"]?["set"] == true)
        #expect(state["playIntegrity"]?["serviceAccount"]?["clientEmail"]?.string == "integrity@demo-project.iam.gserviceaccount.com")
        #expect(state["playIntegrity"]?["local"]?["set"] == true)
        #expect(!patched.text.contains(decryptionKey))
        let got = try first.client.send("GET", "\(base)/environments/\(id)", headers: auth)
        #expect(got.json == state)
        #expect(got.header("ETag") == etag)
        first.stop()

        // Restarted on the same file: the same state, byte for byte, at the same revision.
        let second = try Server(database: database, directory: directory)
        let reread = try second.client.send("GET", "\(base)/environments/\(id)", headers: auth)
        #expect(reread.status == 200, "\(reread.text)")
        #expect(reread.json == state)
        #expect(reread.text == patched.text)
        #expect(reread.header("ETag") == etag)
        #expect(try second.client.send("GET", "\(base)/environments/\(id)", headers: auth + [("If-None-Match", etag)]).status == 304)
        // The sealed credentials still open with the key file beside the database: a stale If-Match is refused and a
        // current one accepted.
        let renamed = try second.client.send("PATCH", "\(base)/environments/\(id)", headers: json + [("If-Match", etag)], body: Array(#"{"name": "Prod"}"#.utf8))
        #expect(renamed.status == 200, "\(renamed.text)")
        #expect(renamed.json?["playIntegrity"] == state["playIntegrity"])
        #expect(try second.client.send("PATCH", "\(base)/environments/\(id)", headers: json + [("If-Match", etag)], body: Array(#"{"name": "X"}"#.utf8)).status == 412)
        second.stop()
    }
}
