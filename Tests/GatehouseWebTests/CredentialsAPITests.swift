import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import Testing
import ThrowawayPostgres

/// Play Integrity credentials: validated, sealed at rest, never returned, logged or audited.
@Suite("Play Integrity credentials", .enabled(if: !ThrowawayPostgres.endToEnd, "reads the SQLite file's bytes"))
struct CredentialsAPITests {
    static let base = "/api/management/v1"

    @Test func secretsNeverLeave() throws {
        let app = try TestApp()
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        let created = app.send("POST", "\(Self.base)/environments", json: ["name": "P", "kind": "production"], headers: auth)
        let id = try #require(created.json?["id"]?.string)
        let privateKey = try TestKeys.rsaPrivateKeyPEM()
        let decryptionKey = TestKeys.aesKeyBase64()
        let verificationKey = try TestKeys.ecPublicKeyBase64()
        let body = """
        {"playIntegrity": {"serviceAccount": \(TestKeys.serviceAccountJSON(privateKeyPEM: privateKey)),
                           "local": {"decryptionKey": "\(decryptionKey)", "verificationKey": "\(verificationKey)"}}}
        """
        let patched = app.send("PATCH", "\(Self.base)/environments/\(id)", headers: auth, body: Array(body.utf8))
        #expect(patched.status == 200, "\(patched.text)")
        let status = try #require(patched.json?["playIntegrity"])
        #expect(status["serviceAccount"]?["set"]?.bool == true)
        #expect(status["serviceAccount"]?["clientEmail"]?.string == "integrity@demo-project.iam.gserviceaccount.com")
        #expect(status["serviceAccount"]?["projectId"]?.string == "demo-project")
        #expect(status["local"]?["set"]?.bool == true)
        #expect(status["local"]?["verificationKeySha256"]?.string?.count == 64)

        // The credentials round-trip through the seal.
        let stored = try app.application.domain.environments.credentials(id)
        #expect(stored.serviceAccount?["private_key"]?.string == privateKey)
        #expect(stored.local?.decryptionKey == Array(Data(base64Encoded: decryptionKey) ?? Data()))

        // Nothing secret in any response, audit entry, log line or the database file.
        let keyBody = privateKey.split(separator: "\n").dropFirst().first.map(String.init) ?? privateKey
        let secrets = [keyBody, decryptionKey]
        let responses = [
            patched.text,
            app.send("GET", "\(Self.base)/environments/\(id)", headers: auth).text,
            app.send("GET", "\(Self.base)/environments", headers: auth).text,
            app.send("GET", "\(Self.base)/audit", headers: auth).text,
        ]
        for secret in secrets {
            for text in responses { #expect(!text.contains(secret)) }
            for line in app.logLines.all { #expect(!line.contains(secret)) }
        }
        let audit = app.send("GET", "\(Self.base)/audit?environmentId=\(id)", headers: auth)
        #expect(audit.text.contains("[sealed]"))
        let database = try Data(contentsOf: URL(fileURLWithPath: app.application.configuration.domain.database))
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: app.application.configuration.domain.database + "-wal"))) ?? Data()
        for secret in secrets {
            #expect(database.range(of: Data(secret.utf8)) == nil)
            #expect(wal.range(of: Data(secret.utf8)) == nil)
        }
        #expect(wal.range(of: Data(base64Encoded: decryptionKey) ?? Data()) == nil)

        // Removing one keeps the other.
        let removed = app.send("PATCH", "\(Self.base)/environments/\(id)", json: ["playIntegrity": ["serviceAccount": nil]], headers: auth)
        #expect(removed.json?["playIntegrity"]?["serviceAccount"]?["set"]?.bool == false)
        #expect(removed.json?["playIntegrity"]?["local"]?["set"]?.bool == true)
        let both = app.send("PATCH", "\(Self.base)/environments/\(id)", json: ["playIntegrity": nil], headers: auth)
        #expect(both.json?["playIntegrity"]?["local"]?["set"]?.bool == false)
    }

    @Test func invalidCredentialsAreNamedWithoutEchoingThem() throws {
        let app = try TestApp()
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        let id = try #require(app.send("POST", "\(Self.base)/environments", json: ["name": "P", "kind": "production"], headers: auth).json?["id"]?.string)
        let brokenKey = "-----BEGIN PRIVATE KEY-----\\nTUlJQ0VSWVNFQ1JFVA==\\n-----END PRIVATE KEY-----\\n"
        let p384 = try TestKeys.ecP384PublicKeyBase64()
        let body = """
        {"playIntegrity": {"serviceAccount": {"type": "service_account", "client_email": "a@b.c", "private_key": "\(brokenKey)", "token_uri": "https://oauth2.googleapis.com/token"},
                           "local": {"decryptionKey": "c2hvcnQ=", "verificationKey": "\(p384)"}}}
        """
        let r = app.send("PATCH", "\(Self.base)/environments/\(id)", headers: auth, body: Array(body.utf8))
        #expect(r.status == 422)
        let pointers = try #require(r.json?["errors"]?.array).compactMap { $0["pointer"]?.string }
        #expect(pointers == ["/playIntegrity/serviceAccount/private_key", "/playIntegrity/local/decryptionKey", "/playIntegrity/local/verificationKey"])
        #expect(!r.text.contains("TUlJQ0VSWVNFQ1JFVA"))
        #expect(!r.text.contains("c2hvcnQ"))
    }
}
