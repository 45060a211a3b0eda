import AttestationTesting
import Crypto
import Foundation
import JSON
import Simulator
import Testing
import TestSupport

/// The Play Integrity policy through HTTP with tokens minted with local keys (docs/device-api.md "Play Integrity in
/// depth"): each knob changes the verdict as specified, the dialog that would fix it in the answer and in assess's
/// attestation, testers' responses refused in production and accepted in development, the policy's bad input by
/// pointer, and today's usage apart from the environment.
@Suite("Play Integrity policy through HTTP", .serialized)
struct PlayIntegrityPolicyAPITests {
    let server: DeviceServer
    let fixture: PlayIntegrityFixture
    let environment: String
    let publicKey: String

    init(kind: String = "production") throws {
        server = try DeviceServer(["--device-rate-per-address", "0"])
        fixture = try PlayIntegrityFixture()
        (environment, publicKey) = try server.environment(kind: kind, appIds: [])
        try server.patch(environment, fixture.registration(playIntegrity: fixture.localKeys()))
    }

    /// Sends a token made from a passing payload changed by `change`; the answer's JSON.
    func judge(_ change: (inout PlayIntegrityPayloadTemplate) -> Void = { _ in }) throws -> JSON {
        let token = try fixture.token(fixture.payload(nowMillis: PlayIntegrityFixture.nowMillis, change))
        let response = try server.post("/play-integrity", PlayIntegrityFixture.request(apiKey: publicKey, token: token))
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json)
    }

    static func verdict(_ answer: JSON) -> String {
        ([answer["verdict"]?["status"]?.string ?? "none"] + (answer["verdict"]?["reasons"]?.array?.compactMap(\.string) ?? [])).joined(separator: " ")
    }

    func policy(_ text: String) throws {
        try server.patch(environment, try JSONParser.parse(#"{"playIntegrity": {"policy": \#(text)}}"#))
    }

    @Test func eachKnobChangesTheVerdict() throws {
        // The defaults: today's rules.
        #expect(Self.verdict(try judge()) == "verified")
        #expect(Self.verdict(try judge { $0.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"] }) == "rejected basicIntegrityOnly")

        try policy(#"{"deviceIntegrity": "strong"}"#)
        let device = try judge()
        #expect(Self.verdict(device) == "rejected strongIntegrityNotMet")
        #expect(device["remediation"] == .object([.init("dialog", .string("GET_STRONG_INTEGRITY")), .init("code", .int(5))]))
        #expect(Self.verdict(try judge { $0.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY", "MEETS_STRONG_INTEGRITY"] }) == "verified")

        try policy(#"{"deviceIntegrity": "basic", "allowVirtual": true}"#)
        #expect(Self.verdict(try judge { $0.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"] }) == "verified")
        #expect(Self.verdict(try judge { $0.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"] }) == "verified")
        let none = try judge { $0.deviceRecognitionVerdict = [] }
        #expect(Self.verdict(none) == "rejected deviceIntegrityNotMet")
        #expect(none["remediation"]?["dialog"]?.string == "GET_INTEGRITY")

        try policy(#"{"deviceIntegrity": null, "allowVirtual": null, "requireLicensed": false, "allowUnrecognizedVersion": true}"#)
        #expect(Self.verdict(try judge { $0.appLicensingVerdict = "UNLICENSED" }) == "verified")
        #expect(Self.verdict(try judge { $0.appRecognitionVerdict = "UNRECOGNIZED_VERSION" }) == "verified")
        try policy(#"{"requireLicensed": null}"#)
        let unlicensed = try judge { $0.appLicensingVerdict = "UNLICENSED" }
        #expect(unlicensed["remediation"]?["code"]?.integer == 1)

        try policy(#"{"minimumVersionCode": {"com.example.app": 4200}, "minimumSdkVersion": 33}"#)
        let old = try judge { $0.versionCode = 4199; $0.sdkVersion = 30 }
        #expect(Self.verdict(old) == "rejected versionCode:4199 sdkVersion:30")
        #expect(old["remediation"] == nil, "an app-side refusal offers no dialog")
        #expect(Self.verdict(try judge { $0.versionCode = 4200; $0.sdkVersion = 33 }) == "verified")
        #expect(Self.verdict(try judge { $0.versionCode = 4200; $0.sdkVersion = nil }) == "rejected sdkVersionMissing")

        try policy(#"{"minimumVersionCode": null, "minimumSdkVersion": null, "maximumActivityLevel": "LEVEL_2", "playProtect": "NO_DATA", "appsDetected": ["KNOWN_OVERLAYS", "UNKNOWN_INSTALLED"], "accountActivity": true}"#)
        #expect(Self.verdict(try judge { $0.deviceActivityLevel = "LEVEL_3" }) == "rejected highDeviceActivity")
        #expect(Self.verdict(try judge { $0.playProtectVerdict = "POSSIBLE_RISK" }) == "rejected playProtect:POSSIBLE_RISK")
        let overlays = try judge { $0.appsDetected = ["KNOWN_OVERLAYS", "UNKNOWN_CONTROLLING"] }
        #expect(Self.verdict(overlays) == "rejected knownOverlayAppDetected")
        #expect(overlays["remediation"]?["dialog"]?.string == "CLOSE_ALL_ACCESS_RISK")
        #expect(try judge { $0.appsDetected = ["UNKNOWN_INSTALLED", "KNOWN_OVERLAYS"] }["remediation"]?["dialog"]?.string == "CLOSE_UNKNOWN_ACCESS_RISK")
        #expect(Self.verdict(try judge { $0.accountActivity = "UNUSUAL" }) == "rejected unusualAccountActivity")
        #expect(Self.verdict(try judge { $0.accountActivity = "TYPICAL_STRONG" }) == "verified")

        // Every field observed.
        let observed = try judge { $0.legacyDeviceRecognitionVerdict = ["MEETS_DEVICE_INTEGRITY"]; $0.versionCode = 77 }["observed"]
        #expect(observed?["versionCode"]?.integer == 77)
        #expect(observed?["sdkVersion"]?.integer == 34)
        #expect(observed?["legacyDeviceRecognitionVerdict"] == .array([.string("MEETS_DEVICE_INTEGRITY")]))
        #expect(observed?["requestPackageName"]?.string == PlayIntegrityFixture.packageName)

        // The representation carries the policy; null brings back today's rules.
        try policy("null")
        let shown = try server.client.send("GET", "/api/management/v1/environments/\(environment)", headers: [("Authorization", "Bearer " + server.token)])
        let expected = try JSONParser.parse(#"{"deviceIntegrity": "device", "allowVirtual": false, "requireLicensed": true, "allowUnrecognizedVersion": false, "minimumVersionCode": {}, "minimumSdkVersion": null, "maximumActivityLevel": "LEVEL_3", "playProtect": "POSSIBLE_RISK", "appsDetected": ["UNKNOWN_CONTROLLING", "UNKNOWN_CAPTURING"], "rejectTestingResponses": true, "accountActivity": false}"#)
        #expect(shown.json?["playIntegrity"]?["policy"] == expected, "\(shown.text)")
    }

    @Test func testersResponsesAreRefusedInProductionAndAcceptedInDevelopment() throws {
        #expect(Self.verdict(try judge { $0.isTestingResponse = true }) == "rejected testingResponse")
        try policy(#"{"rejectTestingResponses": false}"#)
        #expect(Self.verdict(try judge { $0.isTestingResponse = true }) == "verified")
        let development = try PlayIntegrityPolicyAPITests(kind: "development")
        #expect(Self.verdict(try development.judge { $0.isTestingResponse = true }) == "verified")
        try development.policy(#"{"rejectTestingResponses": true}"#)
        #expect(Self.verdict(try development.judge { $0.isTestingResponse = true }) == "rejected testingResponse")
    }

    @Test func assessCarriesTheDialog() throws {
        try policy(#"{"deviceIntegrity": "strong"}"#)
        let envelope = try SignedEnvelope(apiKey: publicKey, platform: "android",
                                          signed: SignedEnvelope.signedText(appID: PlayIntegrityFixture.packageName,
                                                                            signatureDigest: Hex.encode(fixture.digest)),
                                          timestamp: PlayIntegrityFixture.nowMillis)
        let payload = fixture.payload(nowMillis: PlayIntegrityFixture.nowMillis) { $0.requestHash = envelope.requestHash }
        let answer = try server.assess(envelope.json(attestation: SignedEnvelope.playIntegrity(try fixture.token(payload))))
        #expect(answer.json?["attestation"]?["reasons"]?.array == [.string("strongIntegrityNotMet")], "\(answer.text)")
        #expect(answer.json?["attestation"]?["remediation"] == .object([.init("dialog", .string("GET_STRONG_INTEGRITY")), .init("code", .int(5))]))
    }

    @Test func badPolicyMembersAreNamedByPointerAndUsageIsApart() throws {
        let bad = try server.client.send("PATCH", "/api/management/v1/environments/\(environment)",
                                         headers: [("Authorization", "Bearer " + server.token), ("Content-Type", "application/json")],
                                         body: Array(#"{"playIntegrity": {"policy": {"deviceIntegrity": "excellent", "minimumVersionCode": {"not a package": 3}, "appsDetected": ["KNOWN_INSTALLED", "KNOWN_INSTALLED"], "colour": 1}}}"#.utf8))
        #expect(bad.status == 422)
        let pointers = Set(bad.json?["errors"]?.array?.compactMap { $0["pointer"]?.string } ?? [])
        #expect(pointers == ["/playIntegrity/policy/deviceIntegrity", "/playIntegrity/policy/minimumVersionCode/not a package",
                             "/playIntegrity/policy/appsDetected/1", "/playIntegrity/policy/colour"], "\(bad.text)")

        let before = try server.client.send("GET", "/api/management/v1/environments/\(environment)", headers: [("Authorization", "Bearer " + server.token)])
        _ = try judge()
        _ = try judge()
        let usage = try server.client.send("GET", "/api/management/v1/environments/\(environment)/play-integrity/usage",
                                           headers: [("Authorization", "Bearer " + server.token)])
        #expect(usage.status == 200)
        #expect(usage.json?["tokens"] == .object([.init(PlayIntegrityFixture.packageName, .int(2))]), "\(usage.text)")
        #expect(usage.json?["googleDecodes"]?.integer == 0)
        #expect(usage.json?["dailyQuota"]?.integer == 10_000)
        #expect(usage.json?["day"]?.string?.count == 10)
        let after = try server.client.send("GET", "/api/management/v1/environments/\(environment)", headers: [("Authorization", "Bearer " + server.token)])
        #expect(after.header("ETag") != nil && after.header("ETag") == before.header("ETag"), "traffic never moves the environment's ETag")
        let metrics = try server.client.send("GET", "/metrics").text
        #expect(metrics.contains(#"gatehouse_play_integrity_tokens_total{environment="\#(environment)",package="com.example.app"} 2"#), "\(metrics)")
    }
}
