import AttestationTesting
import Gatehouse
import GatehouseTesting
import HTTP
import JSON
import Testing

/// The environment's Overview shows the receipt signing key and attack mode's effect over the last hour, counted from
/// real assessments.
@Suite("Dashboard: receipt key and attack mode's effect")
struct DashboardAttackEffectTests {
    @Test func theOverviewCountsRequestsWithoutProofForPlatformsThatCouldProve() throws {
        let app = try TestApp()
        let owner = try app.signIn(role: .owner)
        let services = app.application.domain
        let (environment, issued) = try services.environments.create(name: "Production", kind: .production, actor: .system)
        _ = try services.environments.patch(environment.id, with: try EnvironmentPatch.parse(["appleAppIds": ["ABCDE12345.com.example.app"]]),
                                            actor: .system)
        let publicKey = try #require(issued.first { $0.key.type == .public }?.key.publicValue)

        let page = { app.send("GET", "/environments/\(environment.id)", headers: owner.headers).text }
        #expect(page().contains("No iOS requests were assessed in the last hour."))
        #expect(!page().contains("Android requests"), "Android has nothing set up: left alone, not counted")
        let kid = try #require(try services.receiptKeys.currentKeyID())
        #expect(page().contains("<code>\(kid)</code>"))

        func assess(_ attestation: JSON?) throws {
            let envelope = try SignedEnvelope(apiKey: publicKey, platform: "ios", signed: SignedEnvelope.signedText(appID: "com.example.app"),
                                              timestamp: app.clock.now * 1000)
            let response = app.send("POST", "/api/v4/assess", json: envelope.json(attestation: attestation))
            #expect(response.status == 200, "\(response.text)")
        }
        try assess(nil)
        try assess(SignedEnvelope.appAttest(keyID: [UInt8](repeating: 1, count: 32), assertion: [0xA0]))
        try assess(nil)
        #expect(page().contains("In the last hour <strong>100 %</strong> of iOS requests (3 of 3) came without proof and would be challenged."), "\(page())")

        app.clock.advance(by: 3_601)
        #expect(page().contains("No iOS requests were assessed in the last hour."))
    }
}
