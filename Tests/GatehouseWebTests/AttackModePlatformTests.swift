import AttestationTesting
import Crypto
import Foundation
import GatehouseReceipts
import JSON
import Simulator
import Testing

/// Attack mode against a client that lies about its platform (docs/device-api.md "Attack mode"), over a real socket: a
/// platform nothing checks is left alone only for an app registered on it, or when neither platform can be checked.
@Suite("Assess: attack mode and the claimed platform", .serialized, .needsSyntheticCA)
struct AttackModePlatformTests {
    /// An unattested envelope claiming `platform` for `appID`, with a digest field for Android.
    static func bare(_ publicKey: String, platform: String, appID: String) throws -> JSON {
        try SignedEnvelope(apiKey: publicKey, platform: platform,
                           signed: SignedEnvelope.signedText(appID: appID, signatureDigest: platform == "android" ? String(repeating: "AB", count: 32) : nil),
                           timestamp: AssessFixture.nowMillis).json()
    }

    /// `attackMode` and the receipt's `action` and `plat`, read offline.
    static func judged(_ response: PlainHTTP.Response, _ server: DeviceServer, _ environment: String) throws -> String {
        let verifier = ReceiptVerifier(keys: try server.receiptKeys(), environment: environment)
        let claims = verifier.verify(response.json?["sessionToken"]?.string ?? "", method: "GET", pathAndQuery: "/", proof: nil,
                                     nowMilliseconds: AssessFixture.nowMillis).claims
        return "\(response.json?["attackMode"]?.string ?? "?") \(claims?.action.rawValue ?? "?") \(claims?.platform ?? "?")"
    }

    @Test func anIOSOnlyEnvironmentChallengesARequestThatClaimsAndroid() throws {
        let server = try DeviceServer()
        let (environment, publicKey) = try server.environment(kind: "production", appIds: [AssessFixture.appId])
        try server.patch(environment, ["attackMode": true])
        // The bundle id of the registered app, claimed as Android: no Android app is registered, so it is challenged.
        let claimed = try server.assess(try Self.bare(publicKey, platform: "android", appID: AssessFixture.bundleId))
        #expect(claimed.status == 200, "\(claimed.text)")
        #expect(try Self.judged(claimed, server, environment) == "unproven challenge android")
        let other = try server.assess(try Self.bare(publicKey, platform: "android", appID: "com.bot.anything"))
        #expect(try Self.judged(other, server, environment) == "unproven challenge android")
        let ios = try server.assess(try Self.bare(publicKey, platform: "ios", appID: AssessFixture.bundleId))
        #expect(try Self.judged(ios, server, environment) == "unproven challenge ios")
    }

    @Test func anAndroidOnlyEnvironmentChallengesARequestThatClaimsIOS() throws {
        let server = try DeviceServer()
        let fixture = try PlayIntegrityFixture()
        let (environment, publicKey) = try AssessAndroidTests.setUp(server, fixture, attackMode: true)
        let claimed = try server.assess(try Self.bare(publicKey, platform: "ios", appID: PlayIntegrityFixture.packageName))
        #expect(try Self.judged(claimed, server, environment) == "unproven challenge ios")
        let proven = try server.assess(try AssessAndroidTests.request(publicKey, fixture))
        #expect(try Self.judged(proven, server, environment) == "proven allow android")
    }

    @Test func aRegisteredAppOnAnUncheckedPlatformIsLeftAloneAndNothingCheckableLeavesAllAlone() throws {
        let server = try DeviceServer()
        let fixture = try PlayIntegrityFixture()
        // iOS checked; Android registers com.example.app but has no keys, so a genuine Android install brings nothing.
        let (environment, publicKey) = try server.environment(kind: "production", appIds: ["ABCDE12345.com.example.ios"])
        try server.patch(environment, fixture.registration())
        try server.patch(environment, ["attackMode": true])
        let registered = try server.assess(try Self.bare(publicKey, platform: "android", appID: PlayIntegrityFixture.packageName))
        #expect(try Self.judged(registered, server, environment) == "off allow android")
        let stranger = try server.assess(try Self.bare(publicKey, platform: "android", appID: "com.example.ios"))
        #expect(try Self.judged(stranger, server, environment) == "unproven challenge android")

        // Neither platform can be checked: everything is left alone, as when the switch is off.
        let (open, openKey) = try server.environment(kind: "production", appIds: [])
        try server.patch(open, fixture.registration())
        try server.patch(open, ["attackMode": true])
        for platform in ["android", "ios"] {
            let response = try server.assess(try Self.bare(openKey, platform: platform, appID: "com.anything"))
            #expect(try Self.judged(response, server, open) == "off allow \(platform)")
        }
    }
}
