import Attestation
import Crypto
import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import HTTPServer
import JSON
import Simulator
import Synchronization
import Testing
import TestSupport
import TestThreads

/// Android key attestation through HTTP (docs/device-api.md "Android Key Attestation"), against a `gatehouse serve`
/// that trusts a synthetic key attestation root: registration under each policy knob, the forgeries refused for
/// their reasons, a challenge used once, `assess` with a stored key; and on the test clock, a certificate revoked
/// after registration and the status list fetched once an hour across servers.
@Suite("Key attestation through HTTP", .serialized)
struct KeyAttestationAPITests {
    static let packageName = "com.example.app"
    static let digest: [UInt8] = Array(repeating: 0xAB, count: 32)

    let server: DeviceServer
    let environment: String
    let publicKey: String

    init() throws {
        server = try DeviceServer(["--device-rate-per-address", "0", "--key-attestation-roots", try KeyAttestationFixture.rootsFile()])
        (environment, publicKey) = try server.environment(kind: "production", appIds: [])
        try server.patch(environment, try JSONParser.parse("""
            {"androidApps": [{"packageName": "\(Self.packageName)", "certificateDigests": ["\(Hex.encode(Self.digest))"]}],
             "keyAttestation": {"enabled": true}}
            """))
    }

    /// Registers a key made for a fresh challenge by `phone`; the answer and the key.
    func register(_ phone: SyntheticKeyAttestation.Phone = .init()) throws -> (JSON, SyntheticKeyAttestation.Attested) {
        let challenge = try server.challenge(publicKey)
        let attested = try KeyAttestationFixture.ca().attest(challenge: Array(challenge.utf8), phone: phone)
        let response = try server.post("/key-attestation", KeyAttestationFixture.body(publicKey, challenge, attested.chain))
        #expect(response.status == 200, "\(response.text)")
        return (try #require(response.json), attested)
    }

    func verdict(_ phone: SyntheticKeyAttestation.Phone = .init()) throws -> String {
        KeyAttestationFixture.verdict(try register(phone).0)
    }

    func policy(_ text: String) throws {
        try server.patch(environment, try JSONParser.parse(#"{"keyAttestation": \#(text)}"#))
    }

    @Test func aRegisteredKeySignsAssessmentsAndAChallengeWorksOnce() throws {
        let challenge = try server.challenge(publicKey)
        let attested = try KeyAttestationFixture.ca().attest(challenge: Array(challenge.utf8))
        let body = KeyAttestationFixture.body(publicKey, challenge, attested.chain)
        let first = try #require(try server.post("/key-attestation", body).json)
        #expect(KeyAttestationFixture.verdict(first) == "verified", "\(first)")
        #expect(first["keyId"]?.string == attested.keyID)
        #expect(first["observed"]?["securityLevel"]?.string == "tee")
        #expect(first["observed"]?["verifiedBootState"]?.string == "verified")
        #expect(first["observed"]?["osPatchLevel"]?.string == "2026-11")
        #expect(first["observed"]?["revocation"]?.string == "unknown")
        // The challenge was spent by the first attempt.
        #expect(KeyAttestationFixture.verdict(try #require(try server.post("/key-attestation", body).json)) == "rejected challengeInvalid")

        // assess: the canonical string signed by the stored key.
        let envelope = try KeyAttestationFixture.envelope(publicKey)
        let signed = try server.assess(envelope.json(attestation: KeyAttestationFixture.proof(attested, over: envelope)))
        #expect(signed.assessed == "verified", "\(signed.text)")
        #expect(signed.tampering.isEmpty)
        // A bad signature, another key, a replay.
        let other = try KeyAttestationFixture.envelope(publicKey)
        var bad = try attested.privateKey.signature(for: Array("something else".utf8))
        bad[bad.count - 3] ^= 0x01
        let badProof: JSON = ["provider": "key-attestation", "keyId": .string(attested.keyID), "token": .string(Base64.encode(bad))]
        #expect(try server.assess(other.json(attestation: badProof)).assessed == "forged signatureInvalid")
        let stranger = try KeyAttestationFixture.ca().attest(challenge: Array("never registered".utf8))
        let third = try KeyAttestationFixture.envelope(publicKey)
        #expect(try server.assess(third.json(attestation: KeyAttestationFixture.proof(stranger, over: third))).assessed == "forged keyUnknown")
        #expect(try server.assess(envelope.json(attestation: KeyAttestationFixture.proof(attested, over: envelope))).assessed == "rejected requestReplayed")
        // A key of this environment is unknown to another one.
        let (_, otherEnvironment) = try server.environment(kind: "production", appIds: [])
        let elsewhere = try KeyAttestationFixture.envelope(otherEnvironment)
        #expect(try server.assess(elsewhere.json(attestation: KeyAttestationFixture.proof(attested, over: elsewhere))).assessed == "forged keyUnknown")

        // The package no longer registered: the stored key is refused at use.
        try server.patch(environment, try JSONParser.parse(#"{"androidApps": [{"packageName": "com.example.other", "certificateDigests": ["\#(Hex.encode(Self.digest))"]}]}"#))
        let after = try KeyAttestationFixture.envelope(publicKey)
        #expect(try server.assess(after.json(attestation: KeyAttestationFixture.proof(attested, over: after))).assessed.hasPrefix("rejected appIdMismatch"))
    }

    @Test func eachPolicyKnobChangesTheVerdict() throws {
        #expect(try verdict() == "verified")
        var strongBox = SyntheticKeyAttestation.Phone()
        strongBox.securityLevel = .strongBox
        try policy(#"{"securityLevel": "strongbox"}"#)
        #expect(try verdict() == "rejected securityLevel:tee")
        #expect(try verdict(strongBox) == "verified")
        try policy(#"{"securityLevel": null}"#)

        var grapheneOS = SyntheticKeyAttestation.Phone()
        grapheneOS.bootState = .selfSigned
        grapheneOS.bootKey = Array(repeating: 0x42, count: 32)
        #expect(try verdict(grapheneOS) == "rejected bootKeyUnknown")
        try policy(#"{"bootKeys": ["\#(Hex.encode(grapheneOS.bootKey).uppercased())"]}"#)
        #expect(try verdict(grapheneOS) == "verified")

        var unlocked = SyntheticKeyAttestation.Phone()
        unlocked.locked = false
        #expect(try verdict(unlocked) == "rejected bootloaderUnlocked")
        try policy(#"{"requireLocked": false}"#)
        #expect(try verdict(unlocked) == "verified")

        var old = SyntheticKeyAttestation.Phone()
        old.patchLevel = 202_401
        try policy(#"{"minimumPatchLevel": "2025-06"}"#)
        #expect(try verdict(old) == "rejected patchLevel:2024-01")
        #expect(try verdict() == "verified")
        try policy(#"{"minimumVersionCode": {"com.example.app": 100}}"#)
        #expect(try verdict() == "rejected versionCode:42")
        try policy(#"{"minimumVersionCode": null, "enabled": false}"#)
        #expect(try verdict() == "rejected keyAttestationDisabled")
        try policy(#"{"enabled": true}"#)

        // Each refusal of the contract, with its reason.
        var unverified = SyntheticKeyAttestation.Phone()
        unverified.bootState = .unverified
        #expect(try verdict(unverified) == "rejected bootUnverified")
        var software = SyntheticKeyAttestation.Phone()
        software.securityLevel = .software
        #expect(try verdict(software) == "forged softwareKey")
        var imported = SyntheticKeyAttestation.Phone()
        imported.origin = 2
        #expect(try verdict(imported) == "rejected keyImported")
        var otherApp = SyntheticKeyAttestation.Phone()
        otherApp.packageName = "com.attacker.app"
        #expect(try verdict(otherApp) == "rejected appIdMismatch")
        var resigned = SyntheticKeyAttestation.Phone()
        resigned.signatureDigests = [Array(repeating: 0xCD, count: 32)]
        #expect(try verdict(resigned) == "rejected certificateMismatch")
        var extended = SyntheticKeyAttestation.Phone()
        extended.extensionOnIntermediate = true
        #expect(try verdict(extended).hasPrefix("forged chainInvalid chainExtended"))

        // The audit log says what changed.
        let audit = try server.client.send("GET", "/api/management/v1/audit?environmentId=\(environment)", headers: [("Authorization", "Bearer " + server.token)])
        #expect(audit.text.contains("keyAttestation"), "\(audit.text.prefix(400))")
    }

    @Test func forgedAndMalformedChains() throws {
        let challenge = try server.challenge(publicKey)
        let attested = try KeyAttestationFixture.ca().attest(challenge: Array(challenge.utf8))
        // A flipped signature byte in the key's certificate.
        var flipped = attested.chain
        flipped[0][flipped[0].count - 5] ^= 0x01
        #expect(KeyAttestationFixture.verdict(try #require(try server.post("/key-attestation", KeyAttestationFixture.body(publicKey, challenge, flipped)).json))
                == "forged chainInvalid")
        // The known forgery: a made-up key certificate issued by a genuine key, every signature valid.
        let forgedChallenge = try server.challenge(publicKey)
        let issued = try KeyAttestationFixture.ca().forge(issuedBy: attested, challenge: Array(forgedChallenge.utf8))
        #expect(issued.chain.count == 3 && issued.chain[1] == attested.chain[0])
        #expect(KeyAttestationFixture.verdict(try #require(try server.post("/key-attestation", KeyAttestationFixture.body(publicKey, forgedChallenge, issued.chain)).json))
                == "forged chainExtended")
        // Certificates that do not decode are judged; text that is not base64 is a 400 by pointer.
        let again = try server.challenge(publicKey)
        #expect(KeyAttestationFixture.verdict(try #require(try server.post("/key-attestation", KeyAttestationFixture.body(publicKey, again, [[1, 2, 3], [4, 5]])).json))
                == "forged chainMalformed")
        let bad = try server.post("/key-attestation", ["apiKey": .string(publicKey), "challenge": .string(again), "certificateChain": ["not base64!"]])
        #expect(bad.status == 400)
        #expect(bad.pointers == ["/certificateChain/0"])
        let notArray = try server.post("/key-attestation", ["apiKey": .string(publicKey), "challenge": .string(again), "certificateChain": "x"])
        #expect(notArray.pointers == ["/certificateChain"])
        // A policy that cannot be read: 422 by pointer, nothing written.
        let (status, problem) = try AppAttestPolicyTests.patch(server, environment, #"{"keyAttestation": {"bootKeys": ["xyz"], "securityLevel": "software"}}"#)
        #expect(status == 422)
        #expect(Set(problem?["errors"]?.array?.compactMap { $0["pointer"]?.string } ?? []) == ["/keyAttestation/bootKeys/0", "/keyAttestation/securityLevel"])
    }
}

/// Revocation on the test clock, through the whole router: the status list fetched by the domain's job, a
/// certificate revoked after registration refusing its key, and on PostgreSQL two servers fetching once an hour
/// between them.
@Suite("Key attestation revocation", .serialized)
struct KeyAttestationRevocationTests {
    @Test func aCertificateRevokedAfterRegistrationRefusesItsKeyAndTheListIsFetchedOnceAnHour() throws {
        let list = try StatusListServer()
        let roots = try KeyAttestationFixture.rootsFile()
        let app = try TestApp { configuration in
            configuration.domain.keyAttestationRoots = roots
            configuration.domain.keyAttestationStatusURL = list.url
        }
        let domain = app.fixture.domain
        let second = try app.postgres.map { _ in try app.fixture.anotherServer() }
        let token = try app.token()
        let auth: Headers = ["Authorization": "Bearer " + token]
        let created = app.send("POST", "/api/management/v1/environments", json: ["name": "Android", "kind": "production"], headers: auth)
        let environment = try #require(created.json?["id"]?.string)
        let publicKey = try #require(created.json?["keys"]?.array?.first { $0["type"]?.string == "public" }?["value"]?.string)
        let patched = app.send("PATCH", "/api/management/v1/environments/\(environment)", json: try JSONParser.parse("""
            {"androidApps": [{"packageName": "\(KeyAttestationAPITests.packageName)", "certificateDigests": ["\(Hex.encode(KeyAttestationAPITests.digest))"]}],
             "keyAttestation": {"enabled": true}}
            """), headers: auth)
        #expect(patched.status == 200, "\(patched.text)")

        // The first run fetches the list; the second server reads it from the database.
        _ = domain.jobs.runDue()
        _ = second?.jobs.runDue()
        #expect(list.fetches == 1, "\(app.logLines.all.filter { $0.contains("status list") })")
        #expect(domain.keyAttestation.statusListFetchedAt == app.clock.now)
        if let second { #expect(second.keyAttestation.statusListFetchedAt == app.clock.now) }

        let challenge = try #require(app.send("POST", "/api/v4/attestation/challenge", json: ["apiKey": .string(publicKey)]).json?["challenge"]?.string)
        let attested = try KeyAttestationFixture.ca().attest(challenge: Array(challenge.utf8))
        let registered = try #require(app.send("POST", "/api/v4/attestation/key-attestation",
                                               json: KeyAttestationFixture.body(publicKey, challenge, attested.chain)).json)
        #expect(KeyAttestationFixture.verdict(registered) == "verified", "\(registered)")
        #expect(registered["observed"]?["revocation"]?.string == "good")
        func assess() throws -> String {
            let envelope = try SignedEnvelope(apiKey: publicKey, platform: "android",
                                              signed: SignedEnvelope.signedText(appID: KeyAttestationAPITests.packageName,
                                                                                signatureDigest: Hex.encode(KeyAttestationAPITests.digest)),
                                              timestamp: app.clock.now * 1000)
            let answer = app.send("POST", "/api/v4/assess", json: envelope.json(attestation: try KeyAttestationFixture.proof(attested, over: envelope)))
            let attestation = answer.json?["attestation"]
            return ([attestation?["status"]?.string ?? "none \(answer.status) \(answer.text)"]
                    + (attestation?["reasons"]?.array?.compactMap(\.string) ?? [])).joined(separator: " ")
        }
        #expect(try assess() == "verified")

        // Google revokes the key's certificate; within the hour nothing is fetched again.
        list.revoke([try #require(try Certificate(der: attested.chain[0]).serialHex)])
        app.clock.advance(by: 1_800)
        _ = domain.jobs.runDue()
        _ = second?.jobs.runDue()
        #expect(list.fetches == 1)
        #expect(try assess() == "verified")
        // An hour after the last fetch, eight callers at once over the servers (two on PostgreSQL): one fetches it,
        // the others read it, and the key is refused.
        app.clock.advance(by: 1_800)
        let servers = [domain] + (second.map { [$0] } ?? [])
        let fetched = concurrently(8) { i in (try? servers[i % servers.count].keyAttestation.refreshStatusList()) ?? false }
        #expect(fetched.filter { $0 }.count == 1, "\(fetched)")
        _ = domain.jobs.runDue()
        _ = second?.jobs.runDue()
        #expect(list.fetches == 2, "the servers fetch once between them")
        #expect(try assess() == "rejected certificateRevoked")
        if let second { #expect(second.keyAttestation.statusListFetchedAt == app.clock.now) }

        // Under revocation: observe, only traffic says it.
        let observe = app.send("PATCH", "/api/management/v1/environments/\(environment)", json: ["keyAttestation": ["revocation": "observe"]], headers: auth)
        #expect(observe.status == 200, "\(observe.text)")
        #expect(try assess() == "verified")
    }
}

/// The Traffic tab's boot keys (in process, real chains through the router): GrapheneOS phones refused
/// `bootKeyUnknown` make `keyAttestation.bootKeys` fail naming the device; its published key is offered in one click,
/// confirmed, and the next phone is verified; a key no system publishes is shown, never offered.
@Suite("Traffic: the boot key offer", .serialized)
struct BootKeyOfferTests {
    static let pixel8 = "cd7479653aa88208f9f03034810ef9b7b0af8a9d41e2000e458ac403a2acb233"

    @Test func aPublishedBootKeyIsNamedOfferedAndAccepted() throws {
        let roots = try KeyAttestationFixture.rootsFile()
        let app = try TestApp { $0.domain.keyAttestationRoots = roots }
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        let created = app.send("POST", "/api/management/v1/environments", json: ["name": "Android", "kind": "production"], headers: auth)
        let id = try #require(created.json?["id"]?.string)
        let publicKey = try #require(created.json?["keys"]?.array?.first { $0["type"]?.string == "public" }?["value"]?.string)
        #expect(app.send("PATCH", "/api/management/v1/environments/\(id)", json: try JSONParser.parse("""
            {"androidApps": [{"packageName": "\(KeyAttestationAPITests.packageName)", "certificateDigests": ["\(Hex.encode(KeyAttestationAPITests.digest))"]}],
             "keyAttestation": {"enabled": true}}
            """), headers: auth).status == 200)
        func register(bootKey: String) throws -> String {
            var phone = SyntheticKeyAttestation.Phone()
            phone.bootState = .selfSigned
            phone.bootKey = try #require(Hex.decode(bootKey))
            let challenge = try #require(app.send("POST", "/api/v4/attestation/challenge", json: ["apiKey": .string(publicKey)]).json?["challenge"]?.string)
            let attested = try KeyAttestationFixture.ca().attest(challenge: Array(challenge.utf8), phone: phone)
            return KeyAttestationFixture.verdict(try #require(app.send("POST", "/api/v4/attestation/key-attestation",
                                                                      json: KeyAttestationFixture.body(publicKey, challenge, attested.chain)).json))
        }
        for _ in 0..<22 { #expect(try register(bootKey: Self.pixel8) == "rejected bootKeyUnknown") }
        let stranger = String(repeating: "7e", count: 32)
        for _ in 0..<3 { #expect(try register(bootKey: stranger) == "rejected bootKeyUnknown") }
        _ = app.fixture.domain.jobs.runDue()  // the recorder writes the verdicts

        let report = try app.fixture.domain.checklists.report(for: try app.fixture.domain.environments.get(id))
        let item = try #require(report.item("keyAttestation.bootKeys"))
        #expect(item.status == .fail)
        #expect(item.evidence.observed.map(\.value) == [Self.pixel8, stranger])
        #expect(item.detail.contains("\(Self.pixel8) (GrapheneOS on Pixel 8) (22 verdicts)"), "\(item.detail)")
        #expect(item.fix.contains("If you accept GrapheneOS, add its key for the Pixel 8"), "\(item.fix)")

        let session = try app.signIn()
        let page = app.send("GET", "/environments/\(id)/traffic", headers: session.headers).text
        #expect(page.contains("Accept the boot key of GrapheneOS on Pixel 8"))
        // The Traffic tab's Android section: what the phones showed, the published key named.
        let section = try #require(page.range(of: "id=\"key-attested\"").map { String(page[$0.lowerBound...].prefix(3_000)) })
        #expect(section.contains("<code>selfSigned</code> <span class=\"muted\">25 verdicts</span>"), "\(section)")
        #expect(section.contains("<code>tee</code>") && section.contains("<code>2026-11</code>"))
        #expect(section.contains("\(Self.pixel8)</code> <span class=\"badge\">GrapheneOS on Pixel 8</span> <span class=\"muted\">22 verdicts</span>"), "\(section)")
        // A key no system publishes is never accepted in one click, even when linked to directly.
        #expect(app.send("GET", "/environments/\(id)/traffic/add-boot-key?key=\(stranger)", headers: session.headers).status == 404)
        let confirm = app.send("GET", "/environments/\(id)/traffic/add-boot-key?key=\(Self.pixel8)", headers: session.headers)
        #expect(confirm.status == 200)
        #expect(confirm.text.contains("<strong>22</strong> of this week"), "\(confirm.text)")
        let etag = try #require(TrafficPageTests.hidden("etag", in: confirm.text))
        #expect(app.postForm("/environments/\(id)/traffic/add-boot-key", ["key": Self.pixel8, "etag": etag], session: try app.signIn(role: .viewer)).status == 403)
        let posted = app.postForm("/environments/\(id)/traffic/add-boot-key", ["key": Self.pixel8, "etag": etag], session: session)
        #expect(posted.status == 303)
        #expect(try app.fixture.domain.environments.get(id).keyAttestation.bootKeys == [Self.pixel8])

        // The next GrapheneOS phone on a Pixel 8 is verified; the Apps tab names the key.
        #expect(try register(bootKey: Self.pixel8) == "verified")
        #expect(try register(bootKey: stranger) == "rejected bootKeyUnknown")
        let apps = app.send("GET", "/environments/\(id)/apps", headers: session.headers).text
        #expect(apps.contains("GrapheneOS on Pixel 8"))
    }
}

/// The checklist's key attestation items from real registrations (in process, real chains through the router): the
/// app's certificate in the chains not registered, a tenth of registrations with software keys, most phones below the
/// minimum patch level; each environment a week of its own.
@Suite("Key attestation: the checklist from real registrations")
struct KeyAttestationChecklistTests {
    static let playSigning: [UInt8] = Array(repeating: 0xC7, count: 32)

    @Test func theCertificateSoftwareKeyAndPatchLevelItemsTurnOnTheirCauses() throws {
        let roots = try KeyAttestationFixture.rootsFile()
        let app = try TestApp { $0.domain.keyAttestationRoots = roots }
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        func environment(_ name: String, policy: String = "") throws -> (id: String, publicKey: String) {
            let created = app.send("POST", "/api/management/v1/environments", json: ["name": .string(name), "kind": "production"], headers: auth)
            let id = try #require(created.json?["id"]?.string)
            let publicKey = try #require(created.json?["keys"]?.array?.first { $0["type"]?.string == "public" }?["value"]?.string)
            #expect(app.send("PATCH", "/api/management/v1/environments/\(id)", json: try JSONParser.parse("""
                {"androidApps": [{"packageName": "\(KeyAttestationAPITests.packageName)", "certificateDigests": ["\(Hex.encode(KeyAttestationAPITests.digest))"]}],
                 "keyAttestation": {"enabled": true\(policy)}}
                """), headers: auth).status == 200)
            return (id, publicKey)
        }
        func register(_ publicKey: String, _ count: Int, _ phone: SyntheticKeyAttestation.Phone = .init()) throws -> [String] {
            try (0..<count).map { _ in
                let challenge = try #require(app.send("POST", "/api/v4/attestation/challenge", json: ["apiKey": .string(publicKey)]).json?["challenge"]?.string)
                let attested = try KeyAttestationFixture.ca().attest(challenge: Array(challenge.utf8), phone: phone)
                return KeyAttestationFixture.verdict(try #require(app.send("POST", "/api/v4/attestation/key-attestation",
                                                                          json: KeyAttestationFixture.body(publicKey, challenge, attested.chain)).json))
            }
        }
        func item(_ id: String, _ environmentID: String) throws -> ChecklistItem {
            app.clock.advance(by: 1)
            _ = app.fixture.domain.jobs.runDue()  // the recorder writes the verdicts
            return try #require(try app.fixture.domain.checklists.report(for: try app.fixture.domain.environments.get(environmentID)).item(id))
        }

        // Play re-signs the app: the chains carry Play's app-signing certificate, the environment has the upload key.
        let resigned = try environment("Play-signed")
        var playBuild = SyntheticKeyAttestation.Phone()
        playBuild.signatureDigests = [Self.playSigning]
        #expect(Set(try register(resigned.publicKey, 21, playBuild)) == ["rejected certificateMismatch"])
        #expect(Set(try register(resigned.publicKey, 4)) == ["verified"])
        let certificate = try item("keyAttestation.certificateNotRegistered", resigned.id)
        let shown = Hex.encode(Self.playSigning, uppercase: true, separator: ":")
        #expect(certificate.status == .fail)
        #expect(certificate.evidence.observed.map(\.value) == [shown])
        #expect(certificate.fix.contains("Add \(shown) to the certificate digests of \(KeyAttestationAPITests.packageName)"), "\(certificate.fix)")
        #expect(app.send("PATCH", "/api/management/v1/environments/\(resigned.id)", json: try JSONParser.parse("""
            {"androidApps": [{"packageName": "\(KeyAttestationAPITests.packageName)",
                              "certificateDigests": ["\(Hex.encode(KeyAttestationAPITests.digest))", "\(Hex.encode(Self.playSigning))"]}]}
            """), headers: auth).status == 200)
        #expect(try item("keyAttestation.certificateNotRegistered", resigned.id).fixed)
        #expect(Set(try register(resigned.publicKey, 1, playBuild)) == ["verified"])

        // Emulators: keys made in software, a tenth or more of the week's registrations.
        let farmed = try environment("Farmed")
        var emulator = SyntheticKeyAttestation.Phone()
        emulator.securityLevel = .software
        #expect(Set(try register(farmed.publicKey, 20, emulator)) == ["forged softwareKey"])
        #expect(Set(try register(farmed.publicKey, 5)) == ["verified"])
        let software = try item("keyAttestation.softwareKeys", farmed.id)
        #expect(software.status == .warn)
        #expect(software.evidence.verdicts == 25 && software.evidence.failing == 20, "\(software.evidence)")

        // A minimum patch level most phones do not have.
        let strict = try environment("Strict", policy: #", "minimumPatchLevel": "2026-06""#)
        var stale = SyntheticKeyAttestation.Phone()
        stale.patchLevel = 202_601
        #expect(Set(try register(strict.publicKey, 6, stale)) == ["rejected patchLevel:2026-01"])
        #expect(Set(try register(strict.publicKey, 3)) == ["verified"])
        let patch = try item("keyAttestation.patchLevel", strict.id)
        #expect(patch.status == .warn)
        #expect(patch.detail.hasPrefix("6 of 9 key attestation verdicts came from phones patched before 2026-06"), "\(patch.detail)")
        #expect(try item("keyAttestation.softwareKeys", strict.id).status == .ok)
    }
}

/// What the key attestation tests share: the synthetic CA, its roots file, request bodies and envelopes.
enum KeyAttestationFixture {
    static let authority: Result<SyntheticKeyAttestation, any Error> = Result { try SyntheticKeyAttestation() }
    static func ca() throws -> SyntheticKeyAttestation { try authority.get() }

    static let roots: Result<String, any Error> = Result {
        let file = NSTemporaryDirectory() + "gatehouse-key-attestation-roots-\(UUID().uuidString).pem"
        try (try ca().rootPEM).write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A PEM file of the synthetic root (`--key-attestation-roots`).
    static func rootsFile() throws -> String { try roots.get() }

    static func body(_ publicKey: String, _ challenge: String, _ chain: [[UInt8]]) -> JSON {
        ["apiKey": .string(publicKey), "challenge": .string(challenge), "certificateChain": .array(chain.map { .string(Base64.encode($0)) })]
    }

    /// "status reason…" of a registration's answer.
    static func verdict(_ answer: JSON) -> String {
        ([answer["verdict"]?["status"]?.string ?? "none"] + (answer["verdict"]?["reasons"]?.array?.compactMap(\.string) ?? [])).joined(separator: " ")
    }

    /// An Android envelope for `publicKey` naming the registered app and its certificate.
    static func envelope(_ publicKey: String) throws -> SignedEnvelope {
        try SignedEnvelope(apiKey: publicKey, platform: "android",
                           signed: SignedEnvelope.signedText(appID: KeyAttestationAPITests.packageName,
                                                             signatureDigest: Hex.encode(KeyAttestationAPITests.digest), deviceID: "pixel-1"),
                           timestamp: AssessFixture.nowMillis)
    }

    /// `{"provider": "key-attestation", "keyId", "token"}`: the envelope's canonical string signed by `attested`'s key.
    static func proof(_ attested: SyntheticKeyAttestation.Attested, over envelope: SignedEnvelope) throws -> JSON {
        ["provider": "key-attestation", "keyId": .string(attested.keyID),
         "token": .string(Base64.encode(try attested.privateKey.signature(for: envelope.clientData)))]
    }
}

/// Google's status list served on a loopback port: what `--key-attestation-status-url` points at, with the requests
/// counted.
final class StatusListServer: Sendable {
    private let server: Server
    private let served: Served
    /// `http://127.0.0.1:<port>/attestation/status`.
    let url: String

    /// What is served, and how many times.
    final class Served: Sendable {
        let body = Mutex<String>(#"{"entries": {}}"#)
        let requests = Atomic(0)
    }

    init() throws {
        let served = Served()
        self.served = served
        server = Server(configuration: ServerConfiguration(host: "127.0.0.1", port: 0, workerThreads: 2), responder: { _ in
            served.requests.add(1, ordering: .relaxed)
            return Response(status: 200, contentType: "application/json", body: served.body.withLock { $0 })
        }, logger: Logger(minimumLevel: .error, accessLog: false) { _ in })
        try server.start()
        url = "http://127.0.0.1:\(server.boundPort)/attestation/status"
    }

    deinit {
        server.shutdown()
        server.wait()
    }

    /// Serves `serials` as revoked from now on.
    func revoke(_ serials: [String]) {
        let entries = serials.map { #""\#($0)": {"status": "REVOKED", "reason": "KEY_COMPROMISE"}"# }.joined(separator: ", ")
        served.body.withLock { $0 = #"{"entries": {\#(entries)}}"# }
    }

    /// How many times the list was fetched.
    var fetches: Int { served.requests.load(ordering: .relaxed) }
}
