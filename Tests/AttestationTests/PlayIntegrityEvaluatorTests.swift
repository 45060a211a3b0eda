import Attestation
import AttestationTesting
import Crypto
import JSON
import Testing

@Suite struct PlayIntegrityEvaluatorTests {
    @Test func aGenuineVerdictIsVerifiedAndObserved() throws {
        let scene = try PlayIntegrityScene()
        let judgement = try scene.judge()
        #expect(judgement.verdict == .verified)
        #expect(judgement.payload == scene.payload.json)
        #expect(judgement.decodeError == nil)
        let observed = judgement.observed
        #expect(observed.packageName == PlayIntegrityScene.packageName)
        #expect(observed.certificateDigests == [Hex.encode(scene.certificate, uppercase: true, separator: ":")])
        #expect(observed.appRecognitionVerdict == "PLAY_RECOGNIZED")
        #expect(observed.deviceRecognitionVerdict == ["MEETS_DEVICE_INTEGRITY"])
        #expect(observed.appLicensingVerdict == "LICENSED")
        #expect(observed.playProtectVerdict == "NO_ISSUES")
        #expect(observed.appsDetected == ["KNOWN_INSTALLED"])
        #expect(observed.deviceActivityLevel == "LEVEL_1")
        #expect(observed.timestampMillis == PlayIntegrityScene.now - 5_000)
        #expect(observed.json["timestamp"] == "2026-09-21T14:13:15Z")
        #expect(judgement.json["verdict"] == ["status": "verified", "reasons": []])
    }

    /// One change to a passing payload (or to the request or registration) and the one reason it must give.
    static let singleFaults: [(String, Reason, @Sendable (inout PlayIntegrityScene) -> Void)] = [
        ("request hash", .requestMismatch, { $0.request.requestHash = "something else" }),
        ("no binding at all", .requestMismatch, { $0.payload.requestHash = "" ; $0.request.requestHash = "x" }),
        ("11 minutes old", .staleVerdict, { $0.payload.timestampMillis = PlayIntegrityScene.now - 660_000 }),
        ("11 minutes ahead", .staleVerdict, { $0.payload.timestampMillis = PlayIntegrityScene.now + 660_000 }),
        ("package not registered", .packageNotRegistered, {
            $0.payload.packageName = "com.evil.app"
            $0.payload.requestPackageName = "com.evil.app"
        }),
        ("another registered package", .packageMismatch, { $0.request.packageName = "com.example.other" }),
        ("another certificate", .certificateMismatch, { $0.payload.certificateDigests = [[UInt8](repeating: 7, count: 32)] }),
        ("unrecognized version", .appVerdict("UNRECOGNIZED_VERSION"), { $0.payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION" }),
        ("unevaluated app", .appVerdict("UNEVALUATED"), { $0.payload.appRecognitionVerdict = "UNEVALUATED" }),
        ("virtual device", .virtualDevice, { $0.payload.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"] }),
        ("basic integrity", .basicIntegrityOnly, { $0.payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"] }),
        ("no integrity", .deviceIntegrityNotMet, { $0.payload.deviceRecognitionVerdict = [] }),
        ("unlicensed", .unlicensed, { $0.payload.appLicensingVerdict = "UNLICENSED" }),
        ("medium risk", .playProtect("MEDIUM_RISK"), { $0.payload.playProtectVerdict = "MEDIUM_RISK" }),
        ("high risk", .playProtect("HIGH_RISK"), { $0.payload.playProtectVerdict = "HIGH_RISK" }),
        ("controlling app", .controllingAppDetected, { $0.payload.appsDetected = ["KNOWN_INSTALLED", "UNKNOWN_CONTROLLING"] }),
        ("capturing app", .capturingAppDetected, { $0.payload.appsDetected = ["UNKNOWN_CAPTURING"] }),
        ("device farm", .highDeviceActivity, { $0.payload.deviceActivityLevel = "LEVEL_4" }),
    ]

    @Test(arguments: singleFaults.indices)
    func eachFaultGivesItsReason(index: Int) throws {
        let (name, reason, change) = Self.singleFaults[index]
        var scene = try PlayIntegrityScene()
        change(&scene)
        let expected = Verdict(reasons: [reason])
        #expect(try scene.judge().verdict == expected, "\(name)")
        #expect(scene.evaluate().verdict == expected, "\(name), decoded by Google")
    }

    @Test func aReplayIsRejected() throws {
        let scene = try PlayIntegrityScene()
        let token = try scene.minter.token(scene.payload.json)
        #expect(scene.judge(token: token).verdict == .verified)
        #expect(scene.judge(token: token, seenBefore: true).verdict == Verdict(status: .rejected, reasons: ["verdictReplayed"]))
    }

    @Test func valuesNamedNowhereGiveNoReason() throws {
        var scene = try PlayIntegrityScene()
        scene.payload.playProtectVerdict = "POSSIBLE_RISK"
        scene.payload.appsDetected = ["KNOWN_INSTALLED", "KNOWN_CAPTURING", "KNOWN_CONTROLLING", "KNOWN_OVERLAYS", "UNKNOWN_OVERLAYS"]
        scene.payload.deviceActivityLevel = "LEVEL_3"
        scene.payload.appLicensingVerdict = "UNEVALUATED"
        scene.payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY", "MEETS_STRONG_INTEGRITY"]
        #expect(try scene.judge().verdict == .verified)
        scene.payload.deviceRecognitionVerdict = ["MEETS_STRONG_INTEGRITY"]
        scene.payload.playProtectVerdict = nil
        scene.payload.deviceActivityLevel = nil
        scene.payload.appLicensingVerdict = nil
        #expect(try scene.judge().verdict == .verified)
    }

    @Test func everyReasonIsCollectedInDEVICEAPIOrder() throws {
        var scene = try PlayIntegrityScene()
        scene.request = PlayIntegrityRequest(packageName: "com.example.other", requestHash: "another request")
        scene.payload.timestampMillis = PlayIntegrityScene.now - 3_600_000
        scene.payload.certificateDigests = [[UInt8](repeating: 1, count: 32)]
        scene.payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION"
        scene.payload.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"]
        scene.payload.appLicensingVerdict = "UNLICENSED"
        scene.payload.playProtectVerdict = "HIGH_RISK"
        scene.payload.appsDetected = ["UNKNOWN_CAPTURING", "UNKNOWN_CONTROLLING"]
        scene.payload.deviceActivityLevel = "LEVEL_4"
        let verdict = try scene.judge(seenBefore: true).verdict
        #expect(verdict.status == .forged)
        #expect(verdict.reasons == [
            "requestMismatch", "staleVerdict", "verdictReplayed", "packageMismatch", "certificateMismatch",
            "appVerdict:UNRECOGNIZED_VERSION", "virtualDevice", "unlicensed", "playProtect:HIGH_RISK",
            "controllingAppDetected", "capturingAppDetected", "highDeviceActivity",
        ])
    }

    @Test func certificateMismatchAndUnlicensedAreBothReported() throws {
        var scene = try PlayIntegrityScene()
        scene.payload.certificateDigests = [try SecureRandom.bytes(32)]
        scene.payload.appLicensingVerdict = "UNLICENSED"
        #expect(try scene.judge().verdict == Verdict(status: .rejected, reasons: ["certificateMismatch", "unlicensed"]))
    }
}
