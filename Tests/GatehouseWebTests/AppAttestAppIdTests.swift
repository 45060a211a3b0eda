import TestSupport
import AttestationTesting
import Crypto
import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import JSON
import Testing

/// App Attest and the app id over a real socket: a key speaks only while its app id is registered, and the app id
/// Apple certified on a key (leaf extension 1.2.840.113635.100.8.5) is what an unregistered registration reports.
@Suite("App Attest: keys and their app id", .serialized, .needsSyntheticCA)
struct AppAttestAppIdTests {
    static let appId = "ABCDE12345.com.example.app"

    @Test func aKeyIsSilencedWhenItsAppIdIsRemovedAndSpendsNoCounter() throws {
        let server = try DeviceServer()
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [Self.appId])
        let key = try server.registeredKey(publicKey: publicKey)
        #expect(try server.assert(key, counter: 1, publicKey: publicKey).verdict == "verified")

        try server.patch(environment, ["appleAppIds": ["ABCDE12345.com.example.other"]])
        #expect(try server.assert(key, counter: 2, publicKey: publicKey).verdict == "rejected appIdNotRegistered")

        // Registered again: the rejected assertion spent nothing, its counter verifies now.
        try server.patch(environment, ["appleAppIds": [.string(Self.appId)]])
        #expect(try server.assert(key, counter: 2, publicKey: publicKey).verdict == "verified")
    }

    @Test func aTypoInTheTeamIdIsNamedByTheAttestedAppId() throws {
        let server = try DeviceServer()
        let (_, publicKey) = try server.environment(kind: "production", appIds: ["ABCDF12345.com.example.app"])
        let (_, response) = try server.attestAndRegister(appId: Self.appId, publicKey: publicKey)
        #expect(response.verdict == "rejected appIdNotRegistered")
        #expect(response.json?["appId"]?.string == Self.appId)
    }

    /// Anyone with an Apple developer account can attest an app of their own against the environment's public key
    /// from real devices; on a quiet environment their verdicts dominate the week. The Traffic tab shows what they
    /// attest, but offers no one-click registration of an app id whose bundle id none of the environment's has, and
    /// the confirmation refuses it even when linked to directly.
    @Test func anotherDevelopersAppIdIsShownButNeverOffered() throws {
        let server = try DeviceServer(["--device-rate-per-address", "0"])
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [Self.appId])
        for _ in 0..<24 {  // past the checklist's 20 failing verdicts
            #expect(try server.attestAndRegister(appId: "EVILTEAM01.com.evil", publicKey: publicKey).1.verdict == "rejected appIdNotRegistered")
        }
        let item = try #require(try waitUntil(seconds: 5) { try server.checklistItem(environment, "apple.appIdNotRegistered")?["status"]?.string == "fail" }
            .flatMap { _ in try server.checklistItem(environment, "apple.appIdNotRegistered") })
        #expect(item["evidence"]?["observed"]?.array?.first?["value"]?.string == "EVILTEAM01.com.evil", "\(item)")

        let browser = DashboardBrowser(client: server.client)
        try browser.createOwner(setupPath: try server.setupPath(), email: "owner@example.com", password: "correct horse battery staple")
        let session = try #require(DashboardBrowser.cookie("gatehouse_session", in: try browser.signIn("owner@example.com", "correct horse battery staple")))
        let page = try server.client.send("GET", "/environments/\(environment)/traffic", headers: [("Cookie", session)])
        #expect(page.status == 200)
        #expect(page.text.contains("EVILTEAM01.com.evil"), "the evidence is shown")
        #expect(!page.text.contains("add-app-id"), "a one-click registration of another developer's app was offered")
        #expect(page.text.contains("another developer&#39;s app is sending attestations") || page.text.contains("another developer's app is sending attestations"))
        let confirm = try server.client.send("GET", "/environments/\(environment)/traffic/add-app-id?appId=EVILTEAM01.com.evil", headers: [("Cookie", session)])
        #expect(confirm.status == 404)
    }
}

/// The Traffic tab's one-click "Register the app id" for `apple.appIdNotRegistered`, on verdicts that name the app id
/// phones attest, through a confirmation page (in process).
@Suite("Traffic: the app id offer", .needsSyntheticCA)
struct AppIDOfferTests {
    @Test func theAttestedAppIdIsOfferedConfirmedAndRegistered() throws {
        let app = try TestApp()
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        let created = app.send("POST", "/api/management/v1/environments", json: ["name": "P", "kind": "production"], headers: auth).json
        let id = try #require(created?["id"]?.string)
        let secret = try #require(created?["keys"]?.array?.compactMap { $0["secret"]?.string }.first)
        #expect(app.send("PATCH", "/api/management/v1/environments/\(id)", json: ["appleAppIds": ["ABCDF12345.com.example.app"]], headers: auth).status == 200)
        let verdicts = (0..<30).map { i -> JSON in
            .object([.init("at", .string(Timestamp.format(app.clock.now - 3600 - Int64(i)))), .init("platform", "ios"), .init("provider", "app-attest"),
                     .init("status", "rejected"), .init("reasons", ["appIdNotRegistered"]),
                     .init("observed", ["appId": "ABCDE12345.com.example.app", "attestationEnvironment": "production"])])
        }
        #expect(app.send("POST", "/api/ingest/v1/verdicts", json: ["verdicts": .array(verdicts)], headers: ["Authorization": "Bearer " + secret]).status == 202)

        let session = try app.signIn()
        let page = app.send("GET", "/environments/\(id)/traffic", headers: session.headers).text
        #expect(page.contains("Register <code>ABCDE12345.com.example.app</code>"), "no one-click fix for the attested app id")
        let confirm = app.send("GET", "/environments/\(id)/traffic/add-app-id?appId=ABCDE12345.com.example.app", headers: session.headers)
        #expect(confirm.status == 200)
        #expect(confirm.text.contains("same bundle id with another prefix"))
        let etag = try #require(TrafficPageTests.hidden("etag", in: confirm.text))
        let posted = app.postForm("/environments/\(id)/traffic/add-app-id", ["appId": "ABCDE12345.com.example.app", "etag": etag], session: session)
        #expect(posted.status == 303)
        #expect(try app.application.domain.environments.get(id).appleAppIDs == ["ABCDF12345.com.example.app", "ABCDE12345.com.example.app"])
        // A viewer cannot, and nothing that is not an app id is proposed.
        let viewer = try app.signIn(role: .viewer)
        #expect(app.postForm("/environments/\(id)/traffic/add-app-id", ["appId": "ZZZZZ12345.com.example.app"], session: viewer).status == 403)
        #expect(app.send("GET", "/environments/\(id)/traffic/add-app-id?appId=not-an-app-id", headers: session.headers).status == 404)
    }
}
