import Attestation
import AttestationTesting
import JSON
import Testing

/// docs/device-api.md "Play Integrity in depth": each knob of the policy against the verdict values it judges, the dialog
/// that would fix a failure, and every field observed. Pure: decoded payloads are judged, no keys, no token. Every row
/// changes one thing of a passing ``Situation``.
@Suite struct PlayIntegrityPolicyTests {
    // MARK: - The situation each row changes

    /// A passing payload for `com.example.app`, a registration of that one app with one certificate, a request bound to
    /// it, a time, and today's policy in a development environment. `set`/`remove` write raw members the template
    /// lacks (or with the wrong type) over its JSON.
    struct Situation {
        static let packageName = "com.example.app"
        static let requestHash = "2f1c0a7d4e5b6c8a9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e"
        static let now: Int64 = 1_790_000_000_000
        static let certificate = [UInt8](repeating: 0x5A, count: 32)

        var policy = PlayIntegrityPolicy()
        var isProduction = false
        var outsidePlay = false
        var seenBefore = false
        var request = PlayIntegrityRequest(packageName: Situation.packageName, requestHash: Situation.requestHash)
        var payload = PlayIntegrityPayloadTemplate(packageName: Situation.packageName, certificateDigest: Situation.certificate,
                                                   requestHash: Situation.requestHash, timestampMillis: Situation.now - 5_000)
        var edits: [(path: String, value: JSON?)] = []

        /// Sets the member at a dotted `path` of the payload (objects on the way are made).
        mutating func set(_ path: String, _ value: JSON) { edits.append((path: path, value: value)) }
        /// Removes the member at a dotted `path` of the payload.
        mutating func remove(_ path: String) { edits.append((path: path, value: nil)) }

        var registration: PlayIntegrityRegistration {
            PlayIntegrityRegistration(apps: [
                AndroidAppRegistration(packageName: Self.packageName, certificateDigests: [Self.certificate], outsidePlay: outsidePlay),
            ], policy: policy, isProduction: isProduction)
        }

        var json: JSON {
            edits.reduce(payload.json) { json, edit in json.replacing(edit.path.split(separator: ".")[...], with: edit.value) }
        }

        func judge() -> PlayIntegrityJudgement {
            PlayIntegrityEvaluator().evaluate(payload: json, registration: registration, request: request, now: Self.now,
                                              seenBefore: seenBefore)
        }
    }

    /// One change and the reasons it must give (none: verified).
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let reasons: [String]
        let change: @Sendable (inout Situation) -> Void

        init(_ name: String, _ reasons: [String], _ change: @escaping @Sendable (inout Situation) -> Void) {
            self.name = name
            self.reasons = reasons
            self.change = change
        }

        var testDescription: String { name }

        func judge() -> PlayIntegrityJudgement {
            var situation = Situation()
            change(&situation)
            return situation.judge()
        }
    }

    /// The verdict of policy reasons (all rejected): verified when there are none.
    static func verdict(_ reasons: [String]) -> Verdict {
        Verdict(status: reasons.isEmpty ? .verified : .rejected, reasons: reasons)
    }

    static func describe(_ value: Bool?) -> String { value.map { "\($0)" } ?? "unset" }

    /// The contract's orders, written out here so the implementation's lists are checked, not reused.
    static let playProtectOrder = ["NO_ISSUES", "NO_DATA", "POSSIBLE_RISK", "MEDIUM_RISK", "HIGH_RISK"]
    static let appsDetectedValues = ["UNKNOWN_CONTROLLING", "UNKNOWN_CAPTURING", "UNKNOWN_OVERLAYS", "UNKNOWN_INSTALLED",
                                     "KNOWN_CONTROLLING", "KNOWN_CAPTURING", "KNOWN_OVERLAYS", "KNOWN_INSTALLED"]
    static let appsDetectedReasons = ["controllingAppDetected", "capturingAppDetected", "overlayAppDetected", "unknownAppInstalled",
                                      "knownControllingAppDetected", "knownCapturingAppDetected", "knownOverlayAppDetected",
                                      "knownAppInstalled"]

    // MARK: - Defaults

    @Test func theDefaultPolicyIsTodaysRules() {
        let policy = PlayIntegrityPolicy()
        #expect(policy.deviceIntegrity == .device)
        #expect(!policy.allowVirtual)
        #expect(policy.requireLicensed)
        #expect(!policy.allowUnrecognizedVersion)
        #expect(policy.minimumVersionCode.isEmpty)
        #expect(policy.minimumSdkVersion == nil)
        #expect(policy.maximumActivityLevel == 3)
        #expect(PlayIntegrityPolicy.playProtectOrder == Self.playProtectOrder)
        #expect(Self.playProtectOrder[policy.playProtect] == "POSSIBLE_RISK")
        #expect(PlayIntegrityPolicy.appsDetectedValues == Self.appsDetectedValues)
        #expect(policy.appsDetected == ["UNKNOWN_CONTROLLING", "UNKNOWN_CAPTURING"])
        #expect(policy.rejectTestingResponses == nil)
        #expect(policy.rejectsTestingResponses(inProduction: true))
        #expect(!policy.rejectsTestingResponses(inProduction: false))
        #expect(!policy.refuseUnusualAccountActivity)
    }

    /// Today's rules, judged under a policy that sets nothing (the one change: testing responses in production).
    static let defaultRules: [Row] = [
        Row("LEVEL_4 refused", ["highDeviceActivity"]) { $0.payload.deviceActivityLevel = "LEVEL_4" },
        Row("LEVEL_3 accepted", []) { $0.payload.deviceActivityLevel = "LEVEL_3" },
        Row("NO_DATA accepted", []) { $0.payload.playProtectVerdict = "NO_DATA" },
        Row("POSSIBLE_RISK accepted", []) { $0.payload.playProtectVerdict = "POSSIBLE_RISK" },
        Row("MEDIUM_RISK refused", ["playProtect:MEDIUM_RISK"]) { $0.payload.playProtectVerdict = "MEDIUM_RISK" },
        Row("HIGH_RISK refused", ["playProtect:HIGH_RISK"]) { $0.payload.playProtectVerdict = "HIGH_RISK" },
        Row("UNKNOWN_CONTROLLING refused", ["controllingAppDetected"]) { $0.payload.appsDetected = ["UNKNOWN_CONTROLLING"] },
        Row("UNKNOWN_CAPTURING refused", ["capturingAppDetected"]) { $0.payload.appsDetected = ["UNKNOWN_CAPTURING"] },
        Row("KNOWN_INSTALLED accepted", []) { $0.payload.appsDetected = ["KNOWN_INSTALLED"] },
        Row("the six other apps values accepted", []) {
            $0.payload.appsDetected = ["UNKNOWN_OVERLAYS", "UNKNOWN_INSTALLED", "KNOWN_CONTROLLING", "KNOWN_CAPTURING",
                                       "KNOWN_OVERLAYS", "KNOWN_INSTALLED"]
        },
        Row("UNLICENSED refused", ["unlicensed"]) { $0.payload.appLicensingVerdict = "UNLICENSED" },
        Row("UNEVALUATED licensing accepted", []) { $0.payload.appLicensingVerdict = "UNEVALUATED" },
        Row("UNRECOGNIZED_VERSION refused", ["appVerdict:UNRECOGNIZED_VERSION"]) { $0.payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION" },
        Row("basic integrity refused", ["basicIntegrityOnly"]) { $0.payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"] },
        Row("virtual integrity refused", ["virtualDevice"]) { $0.payload.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"] },
        Row("strong integrity alone accepted", []) { $0.payload.deviceRecognitionVerdict = ["MEETS_STRONG_INTEGRITY"] },
        Row("no sdkVersion accepted", []) { $0.payload.sdkVersion = nil },
        Row("version code 1 accepted", []) { $0.payload.versionCode = 1 },
        Row("UNUSUAL account activity accepted", []) { $0.payload.accountActivity = "UNUSUAL" },
        Row("a testing response accepted in development", []) { $0.payload.isTestingResponse = true },
        Row("a testing response refused in production", ["testingResponse"]) {
            $0.isProduction = true
            $0.payload.isTestingResponse = true
        },
        Row("production alone changes nothing", []) { $0.isProduction = true },
    ]

    @Test(arguments: defaultRules)
    func theDefaultPolicyKeepsTodaysRules(row: Row) {
        #expect(row.judge().verdict == Self.verdict(row.reasons))
    }

    // MARK: - deviceIntegrity and allowVirtual

    static func device(_ level: PlayIntegrityPolicy.DeviceIntegrity, _ verdicts: [String], allowVirtual: Bool = false,
                       _ reasons: [String]) -> Row {
        let shown = verdicts.map { $0.split(separator: "_").dropFirst().first.map(String.init) ?? $0 }
        return Row("\(level) policy, [\(shown.joined(separator: ", "))]\(allowVirtual ? ", virtual allowed" : "")", reasons) {
            $0.policy.deviceIntegrity = level
            $0.policy.allowVirtual = allowVirtual
            $0.payload.deviceRecognitionVerdict = verdicts
        }
    }

    static let all3 = ["MEETS_STRONG_INTEGRITY", "MEETS_DEVICE_INTEGRITY", "MEETS_BASIC_INTEGRITY"]

    static let deviceIntegrityRows: [Row] = [
        device(.basic, [], ["deviceIntegrityNotMet"]),
        device(.basic, ["MEETS_BASIC_INTEGRITY"], []),
        device(.basic, ["MEETS_DEVICE_INTEGRITY"], []),
        device(.basic, all3, []),
        device(.basic, ["MEETS_VIRTUAL_INTEGRITY"], ["virtualDevice"]),
        device(.basic, ["MEETS_VIRTUAL_INTEGRITY"], allowVirtual: true, []),

        device(.device, [], ["deviceIntegrityNotMet"]),
        device(.device, ["MEETS_BASIC_INTEGRITY"], ["basicIntegrityOnly"]),
        device(.device, ["MEETS_DEVICE_INTEGRITY"], []),
        device(.device, all3, []),
        device(.device, ["MEETS_VIRTUAL_INTEGRITY"], ["virtualDevice"]),
        device(.device, ["MEETS_VIRTUAL_INTEGRITY"], allowVirtual: true, []),
        device(.device, ["MEETS_BASIC_INTEGRITY"], allowVirtual: true, ["basicIntegrityOnly"]),

        device(.strong, [], ["deviceIntegrityNotMet", "strongIntegrityNotMet"]),
        device(.strong, ["MEETS_BASIC_INTEGRITY"], ["basicIntegrityOnly", "strongIntegrityNotMet"]),
        device(.strong, ["MEETS_DEVICE_INTEGRITY"], ["strongIntegrityNotMet"]),
        device(.strong, ["MEETS_DEVICE_INTEGRITY", "MEETS_BASIC_INTEGRITY"], ["strongIntegrityNotMet"]),
        device(.strong, all3, []),
        device(.strong, ["MEETS_STRONG_INTEGRITY"], []),
        device(.strong, ["MEETS_VIRTUAL_INTEGRITY"], ["virtualDevice", "strongIntegrityNotMet"]),
        device(.strong, ["MEETS_VIRTUAL_INTEGRITY"], allowVirtual: true, ["strongIntegrityNotMet"]),
    ]

    @Test(arguments: deviceIntegrityRows)
    func deviceIntegrityIsTheWeakestDeviceVerdictAccepted(row: Row) {
        #expect(row.judge().verdict == Self.verdict(row.reasons))
    }

    // MARK: - requireLicensed and allowUnrecognizedVersion

    static func licensing(require: Bool, outsidePlay: Bool = false, _ verdict: String?, _ reasons: [String]) -> Row {
        Row("requireLicensed \(require)\(outsidePlay ? ", outsidePlay" : ""), \(verdict ?? "no licensing verdict")", reasons) {
            $0.policy.requireLicensed = require
            $0.outsidePlay = outsidePlay
            $0.payload.appLicensingVerdict = verdict
        }
    }

    static let licensingRows: [Row] = [
        licensing(require: true, "UNLICENSED", ["unlicensed"]),
        licensing(require: false, "UNLICENSED", []),
        licensing(require: true, outsidePlay: true, "UNLICENSED", []),
        licensing(require: false, outsidePlay: true, "UNLICENSED", []),
        licensing(require: true, "LICENSED", []),
        licensing(require: true, "UNEVALUATED", []),
        licensing(require: true, nil, []),
    ]

    @Test(arguments: licensingRows)
    func requireLicensedRefusesUnlicensedOutsidePlayExcepted(row: Row) {
        #expect(row.judge().verdict == Self.verdict(row.reasons))
    }

    static func recognition(allow: Bool, _ verdict: String?, _ reasons: [String]) -> Row {
        Row("allowUnrecognizedVersion \(allow), \(verdict ?? "no app verdict")", reasons) {
            $0.policy.allowUnrecognizedVersion = allow
            $0.payload.appRecognitionVerdict = verdict
        }
    }

    static let recognitionRows: [Row] = [
        recognition(allow: false, "UNRECOGNIZED_VERSION", ["appVerdict:UNRECOGNIZED_VERSION"]),
        recognition(allow: true, "UNRECOGNIZED_VERSION", []),
        recognition(allow: true, "UNEVALUATED", ["appVerdict:UNEVALUATED"]),
        recognition(allow: true, nil, ["appVerdict:UNEVALUATED"]),
        recognition(allow: true, "PLAY_RECOGNIZED", []),
    ]

    @Test(arguments: recognitionRows)
    func allowUnrecognizedVersionAcceptsThatVerdictOnly(row: Row) {
        #expect(row.judge().verdict == Self.verdict(row.reasons))
    }

    // MARK: - minimumVersionCode and minimumSdkVersion

    static func versionCode(_ name: String, _ minimum: [String: Int64], _ sent: JSON?, _ reasons: [String]) -> Row {
        Row(name, reasons) {
            $0.policy.minimumVersionCode = minimum
            if let sent { $0.set("appIntegrity.versionCode", sent) } else { $0.remove("appIntegrity.versionCode") }
        }
    }

    static let versionCodeRows: [Row] = [
        versionCode("\"41\" below 42", [Situation.packageName: 42], "41", ["versionCode:41"]),
        versionCode("41 as a number below 42", [Situation.packageName: 42], .int(41), ["versionCode:41"]),
        versionCode("\"42\" equal to 42", [Situation.packageName: 42], "42", []),
        versionCode("\"43\" above 42", [Situation.packageName: 42], "43", []),
        versionCode("\"41\" under another package's minimum", ["com.example.other": 4200], "41", []),
        versionCode("\"1\" with no minimum", [:], "1", []),
        versionCode("missing under a minimum", [Situation.packageName: 42], nil, []),
        versionCode("an object under a minimum", [Situation.packageName: 42], ["value": 1], []),
    ]

    @Test(arguments: versionCodeRows)
    func minimumVersionCodeRefusesOlderBuildsOfItsPackage(row: Row) {
        #expect(row.judge().verdict == Self.verdict(row.reasons))
    }

    static func sdk(minimum: Int?, _ sent: Int?, _ reasons: [String]) -> Row {
        Row("minimumSdkVersion \(minimum.map { "\($0)" } ?? "unset"), sdkVersion \(sent.map { "\($0)" } ?? "missing")", reasons) {
            $0.policy.minimumSdkVersion = minimum
            $0.payload.sdkVersion = sent
        }
    }

    static let sdkRows: [Row] = [
        sdk(minimum: 31, 30, ["sdkVersion:30"]),
        sdk(minimum: 31, 31, []),
        sdk(minimum: 31, 34, []),
        sdk(minimum: 31, nil, ["sdkVersionMissing"]),
        sdk(minimum: nil, nil, []),
        sdk(minimum: nil, 1, []),
        Row("minimumSdkVersion 31, sdkVersion of the wrong type", ["sdkVersionMissing"]) {
            $0.policy.minimumSdkVersion = 31
            $0.set("deviceIntegrity.deviceAttributes.sdkVersion", true)
        },
    ]

    @Test(arguments: sdkRows)
    func minimumSdkVersionRefusesOlderOrMissingVersionsWhenSet(row: Row) {
        #expect(row.judge().verdict == Self.verdict(row.reasons))
    }

    // MARK: - maximumActivityLevel and playProtect

    static let activityLevels = ["LEVEL_1": 1, "LEVEL_2": 2, "LEVEL_3": 3, "LEVEL_4": 4]
    static let observedActivity: [String?] = ["LEVEL_1", "LEVEL_2", "LEVEL_3", "LEVEL_4", "UNEVALUATED", "LEVEL_9", "LEVEL_10", nil]

    @Test(arguments: 1...4, observedActivity)
    func activityAboveTheMaximumIsRefused(maximum: Int, observed: String?) {
        var situation = Situation()
        situation.policy.maximumActivityLevel = maximum
        situation.payload.deviceActivityLevel = observed
        let above = observed.flatMap { Self.activityLevels[$0] }.map { $0 > maximum } ?? false
        let judgement = situation.judge()
        #expect(judgement.verdict == Self.verdict(above ? ["highDeviceActivity"] : []))
        #expect(judgement.observed.deviceActivityLevel == observed)
    }

    static let observedPlayProtect: [String?] = ["NO_ISSUES", "NO_DATA", "POSSIBLE_RISK", "MEDIUM_RISK", "HIGH_RISK",
                                                 "UNEVALUATED", "SEVERE_RISK", nil]

    @Test(arguments: playProtectOrder, observedPlayProtect)
    func playProtectWorseThanTheWorstAcceptedIsRefused(worst: String, observed: String?) throws {
        var situation = Situation()
        situation.policy.playProtect = try #require(PlayIntegrityPolicy.playProtectOrder.firstIndex(of: worst))
        situation.payload.playProtectVerdict = observed
        let worstRank = try #require(Self.playProtectOrder.firstIndex(of: worst))
        let worse = observed.flatMap { Self.playProtectOrder.firstIndex(of: $0) }.map { $0 > worstRank } ?? false
        let judgement = situation.judge()
        #expect(judgement.verdict == Self.verdict(worse ? ["playProtect:" + (observed ?? "")] : []))
        #expect(judgement.observed.playProtectVerdict == observed)
    }

    // MARK: - appsDetected

    @Test(arguments: zip(appsDetectedValues, appsDetectedReasons))
    func eachAppsValueRefusedGivesItsOwnReason(value: String, reason: String) {
        var situation = Situation()
        situation.policy.appsDetected = [value]
        situation.payload.appsDetected = Self.appsDetectedValues + ["UNKNOWN_TELEPORTING"]
        #expect(situation.judge().verdict == Self.verdict([reason]))
        situation.payload.appsDetected = Self.appsDetectedValues.filter { $0 != value }
        #expect(situation.judge().verdict == .verified)
    }

    @Test func allEightRefusedGiveEightReasonsInTheContractsOrder() {
        var situation = Situation()
        situation.policy.appsDetected = Set(Self.appsDetectedValues)
        situation.payload.appsDetected = Self.appsDetectedValues.reversed()
        #expect(situation.judge().verdict == Self.verdict(Self.appsDetectedReasons))
    }

    @Test func theDefaultRefusesOnlyUnknownControllingAndCapturing() {
        var situation = Situation()
        situation.payload.appsDetected = Self.appsDetectedValues
        #expect(situation.judge().verdict == Self.verdict(["controllingAppDetected", "capturingAppDetected"]))
    }

    @Test func anEmptyListRefusesNoApp() {
        var situation = Situation()
        situation.policy.appsDetected = []
        situation.payload.appsDetected = Self.appsDetectedValues
        #expect(situation.judge().verdict == .verified)
    }

    @Test func anUnknownAppsValueGivesNoReasonEvenWhenListed() {
        var situation = Situation()
        situation.policy.appsDetected = Set(Self.appsDetectedValues + ["UNKNOWN_TELEPORTING"])
        situation.payload.appsDetected = ["UNKNOWN_TELEPORTING", "SOMETHING_NEW"]
        let judgement = situation.judge()
        #expect(judgement.verdict == .verified)
        #expect(judgement.observed.appsDetected == ["UNKNOWN_TELEPORTING", "SOMETHING_NEW"])
    }

    // MARK: - rejectTestingResponses and accountActivity

    static func testing(_ setting: Bool?, production: Bool, sent: Bool?, _ reasons: [String]) -> Row {
        Row("rejectTestingResponses \(describe(setting)) in \(production ? "production" : "development"), "
            + "isTestingResponse \(describe(sent))", reasons) {
            $0.policy.rejectTestingResponses = setting
            $0.isProduction = production
            $0.payload.isTestingResponse = sent
        }
    }

    static let testingRows: [Row] = [
        testing(nil, production: true, sent: true, ["testingResponse"]),
        testing(nil, production: false, sent: true, []),
        testing(true, production: false, sent: true, ["testingResponse"]),
        testing(true, production: true, sent: true, ["testingResponse"]),
        testing(false, production: true, sent: true, []),
        testing(false, production: false, sent: true, []),
        testing(nil, production: true, sent: false, []),
        testing(nil, production: true, sent: nil, []),
        testing(true, production: false, sent: false, []),
    ]

    @Test(arguments: testingRows)
    func testingResponsesAreRefusedInProductionUnlessThePolicySaysOtherwise(row: Row) {
        #expect(row.judge().verdict == Self.verdict(row.reasons))
    }

    static func account(refuse: Bool, _ level: String?, _ reasons: [String]) -> Row {
        Row("refuse UNUSUAL \(refuse), \(level ?? "no account activity")", reasons) {
            $0.policy.refuseUnusualAccountActivity = refuse
            $0.payload.accountActivity = level
        }
    }

    static let accountRows: [Row] = [
        account(refuse: true, "UNUSUAL", ["unusualAccountActivity"]),
        account(refuse: false, "UNUSUAL", []),
        account(refuse: true, "TYPICAL_BASIC", []),
        account(refuse: true, "TYPICAL_STRONG", []),
        account(refuse: false, "TYPICAL_BASIC", []),
        account(refuse: false, "TYPICAL_STRONG", []),
        account(refuse: true, "UNEVALUATED", []),
        account(refuse: true, "UNKNOWN", []),
        account(refuse: true, "SUSPICIOUS", []),
        account(refuse: true, nil, []),
    ]

    @Test(arguments: accountRows)
    func unusualAccountActivityIsRefusedOnlyWhenThePolicySaysSo(row: Row) {
        #expect(row.judge().verdict == Self.verdict(row.reasons))
    }

    // MARK: - The dialog that would fix it

    @Test func theFiveDialogsCarryGooglesNamesAndCodes() {
        #expect(PlayIntegrityRemediation.allCases.map { "\($0.dialog) \($0.rawValue)" } == [
            "GET_LICENSED 1", "CLOSE_UNKNOWN_ACCESS_RISK 2", "CLOSE_ALL_ACCESS_RISK 3", "GET_INTEGRITY 4", "GET_STRONG_INTEGRITY 5",
        ])
        #expect(PlayIntegrityRemediation.getStrongIntegrity.json == ["dialog": "GET_STRONG_INTEGRITY", "code": 5])
    }

    /// One situation and the dialog it must answer (none: nil).
    struct DialogRow: Sendable, CustomTestStringConvertible {
        let name: String
        let remediation: PlayIntegrityRemediation?
        let change: @Sendable (inout Situation) -> Void

        init(_ name: String, _ remediation: PlayIntegrityRemediation?, _ change: @escaping @Sendable (inout Situation) -> Void) {
            self.name = name
            self.remediation = remediation
            self.change = change
        }

        var testDescription: String { name }
    }

    static let dialogRows: [DialogRow] = [
        DialogRow("verified", nil) { _ in },
        DialogRow("unlicensed", .getLicensed) { $0.payload.appLicensingVerdict = "UNLICENSED" },
        DialogRow("UNKNOWN_CONTROLLING (default)", .closeUnknownAccessRisk) { $0.payload.appsDetected = ["UNKNOWN_CONTROLLING"] },
        DialogRow("UNKNOWN_CAPTURING (default)", .closeUnknownAccessRisk) { $0.payload.appsDetected = ["UNKNOWN_CAPTURING"] },
        DialogRow("UNKNOWN_OVERLAYS refused", .closeUnknownAccessRisk) {
            $0.policy.appsDetected = ["UNKNOWN_OVERLAYS"]
            $0.payload.appsDetected = ["UNKNOWN_OVERLAYS"]
        },
        DialogRow("UNKNOWN_INSTALLED refused", .closeUnknownAccessRisk) {
            $0.policy.appsDetected = ["UNKNOWN_INSTALLED"]
            $0.payload.appsDetected = ["UNKNOWN_INSTALLED"]
        },
        DialogRow("KNOWN_CONTROLLING refused", .closeAllAccessRisk) {
            $0.policy.appsDetected = ["KNOWN_CONTROLLING"]
            $0.payload.appsDetected = ["KNOWN_CONTROLLING"]
        },
        DialogRow("KNOWN_INSTALLED refused", .closeAllAccessRisk) { $0.policy.appsDetected = ["KNOWN_INSTALLED"] },
        DialogRow("no device integrity", .getIntegrity) { $0.payload.deviceRecognitionVerdict = [] },
        DialogRow("basic integrity only", .getIntegrity) { $0.payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"] },
        DialogRow("virtual device", .getIntegrity) { $0.payload.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"] },
        DialogRow("strong asked, device met", .getStrongIntegrity) { $0.policy.deviceIntegrity = .strong },
        DialogRow("strong asked, virtual allowed and met", .getStrongIntegrity) {
            $0.policy.deviceIntegrity = .strong
            $0.policy.allowVirtual = true
            $0.payload.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"]
        },
        DialogRow("strong asked, basic met", .getIntegrity) {
            $0.policy.deviceIntegrity = .strong
            $0.payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"]
        },
        DialogRow("unlicensed first of all five", .getLicensed) {
            $0.policy.deviceIntegrity = .strong
            $0.policy.appsDetected = ["UNKNOWN_CAPTURING", "KNOWN_INSTALLED"]
            $0.payload.appsDetected = ["KNOWN_INSTALLED", "UNKNOWN_CAPTURING"]
            $0.payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"]
            $0.payload.appLicensingVerdict = "UNLICENSED"
        },
        DialogRow("unknown app before known app and device", .closeUnknownAccessRisk) {
            $0.policy.deviceIntegrity = .strong
            $0.policy.appsDetected = ["UNKNOWN_CAPTURING", "KNOWN_INSTALLED"]
            $0.payload.appsDetected = ["KNOWN_INSTALLED", "UNKNOWN_CAPTURING"]
            $0.payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"]
        },
        DialogRow("known app before device", .closeAllAccessRisk) {
            $0.policy.appsDetected = ["KNOWN_INSTALLED"]
            $0.payload.deviceRecognitionVerdict = ["MEETS_VIRTUAL_INTEGRITY"]
        },
        DialogRow("device before strong", .getIntegrity) {
            $0.policy.deviceIntegrity = .strong
            $0.payload.deviceRecognitionVerdict = []
        },
        DialogRow("forged: another request", nil) { $0.request.requestHash = "another request" },
        DialogRow("forged, unlicensed, no integrity", nil) {
            $0.request.requestHash = "another request"
            $0.payload.appLicensingVerdict = "UNLICENSED"
            $0.payload.deviceRecognitionVerdict = []
        },
        DialogRow("stale", nil) { $0.payload.timestampMillis = Situation.now - 660_000 },
        DialogRow("stale and unlicensed", nil) {
            $0.payload.timestampMillis = Situation.now - 660_000
            $0.payload.appLicensingVerdict = "UNLICENSED"
        },
        DialogRow("replayed", nil) { $0.seenBefore = true },
        DialogRow("replayed with no integrity", nil) {
            $0.seenBefore = true
            $0.payload.deviceRecognitionVerdict = []
        },
        DialogRow("certificateMismatch alone", nil) { $0.payload.certificateDigests = [[UInt8](repeating: 7, count: 32)] },
        DialogRow("versionCode alone", nil) { $0.policy.minimumVersionCode = [Situation.packageName: 4200] },
    ]

    @Test(arguments: dialogRows)
    func theDialogIsTheFirstThatWouldFixIt(row: DialogRow) {
        var situation = Situation()
        row.change(&situation)
        let judgement = situation.judge()
        #expect(judgement.remediation == row.remediation)
        let expected: JSON? = row.remediation.map {
            JSON.object([JSON.Member("dialog", .string($0.dialog)), JSON.Member("code", .int($0.rawValue))])
        }
        #expect(judgement.json["remediation"] == expected)
        #expect(judgement.verdict.isVerified == (row.name == "verified"))
    }

    @Test func judgementsOfNothingOfferNoDialog() {
        let undecodable = PlayIntegrityJudgement(decodeError: PlayIntegrityDecodeError(.decryption, "not a JWE"), seenBefore: true)
        #expect(undecodable.remediation == nil)
        #expect(undecodable.json["remediation"] == nil)
        let unavailable = PlayIntegrityJudgement(unavailable: .googleUnreachable)
        #expect(unavailable.remediation == nil)
        #expect(unavailable.json["remediation"] == nil)
    }

    // MARK: - Every field observed

    /// The observed `deviceRecall` object.
    static func recall(_ bits: [Bool?], _ dates: [String?]) -> JSON {
        .object([JSON.Member("bits", .array(bits.map { $0.map(JSON.bool) ?? .null })),
                 JSON.Member("writeDates", .array(dates.map { JSON.optional($0) }))])
    }

    /// A sent `deviceRecall`: bits true, false, true written on the three dates given.
    static func written(_ first: JSON, _ second: JSON, _ third: JSON) -> JSON {
        .object([
            JSON.Member("values", .object([JSON.Member("bitFirst", true), JSON.Member("bitSecond", false), JSON.Member("bitThird", true)])),
            JSON.Member("writeDates", .object([JSON.Member("yyyymmFirst", first), JSON.Member("yyyymmSecond", second),
                                               JSON.Member("yyyymmThird", third)])),
        ])
    }

    static let fullRecall = written(202401, 202310, 202405)

    @Test func everyNewFieldIsObserved() {
        var situation = Situation()
        situation.payload.versionCode = 4200
        situation.payload.requestPackageName = "com.example.spoofed"
        situation.payload.legacyDeviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY"]
        situation.payload.sdkVersion = 34
        situation.payload.accountActivity = "TYPICAL_STRONG"
        situation.payload.isTestingResponse = true
        situation.set("deviceIntegrity.deviceRecall", Self.fullRecall)
        situation.set("environmentDetails.locationSpoofingRiskVerdict", ["HIGH_RISK"])
        situation.set("environmentDetails.appAccessRiskVerdict.otherApps", "INSTALLED")
        situation.set("environmentDetails.appAccessRiskVerdict.playOrSystemApps", "CAPTURING")
        let judgement = situation.judge()
        #expect(judgement.verdict == .verified)

        let observed = judgement.observed
        #expect(observed.packageName == Situation.packageName)
        #expect(observed.versionCode == 4200)
        #expect(observed.requestPackageName == "com.example.spoofed")
        #expect(observed.legacyDeviceRecognitionVerdict == ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY"])
        #expect(observed.sdkVersion == 34)
        #expect(observed.deviceRecall?.bits == [true, false, true])
        #expect(observed.deviceRecall?.writeDates == ["202401", "202310", "202405"])
        #expect(observed.accountActivity == "TYPICAL_STRONG")
        #expect(observed.locationSpoofingRisk == ["HIGH_RISK"])
        #expect(observed.isTestingResponse == true)
        #expect(observed.otherApps == "INSTALLED")
        #expect(observed.playOrSystemApps == "CAPTURING")

        let json = observed.json
        #expect(json["packageName"] == "com.example.app")
        #expect(json["versionCode"] == 4200)
        #expect(json["requestPackageName"] == "com.example.spoofed")
        #expect(json["legacyDeviceRecognitionVerdict"] == ["MEETS_BASIC_INTEGRITY", "MEETS_DEVICE_INTEGRITY"])
        #expect(json["sdkVersion"] == 34)
        #expect(json["deviceRecall"] == Self.recall([true, false, true], ["202401", "202310", "202405"]))
        #expect(json["accountActivity"] == "TYPICAL_STRONG")
        #expect(json["locationSpoofingRisk"] == ["HIGH_RISK"])
        #expect(json["isTestingResponse"] == true)
        #expect(json["otherApps"] == "INSTALLED")
        #expect(json["playOrSystemApps"] == "CAPTURING")
        #expect(judgement.json["observed"] == json)
    }

    @Test func absentMembersAreObservedAsNullOrEmpty() {
        var situation = Situation()
        situation.payload.requestPackageName = nil
        situation.payload.sdkVersion = nil
        situation.remove("appIntegrity.versionCode")
        let judgement = situation.judge()
        #expect(judgement.verdict == .verified)
        for json in [judgement.observed.json, PlayIntegrityObservation.empty.json] {
            #expect(json["versionCode"] == JSON.null)
            #expect(json["requestPackageName"] == JSON.null)
            #expect(json["legacyDeviceRecognitionVerdict"] == [])
            #expect(json["sdkVersion"] == JSON.null)
            #expect(json["deviceRecall"] == JSON.null)
            #expect(json["accountActivity"] == JSON.null)
            #expect(json["locationSpoofingRisk"] == [])
            #expect(json["isTestingResponse"] == JSON.null)
            #expect(json["otherApps"] == nil)
            #expect(json["playOrSystemApps"] == nil)
        }
        #expect(judgement.observed.packageName == Situation.packageName)
        #expect(judgement.observed.deviceRecall?.bits == nil)
    }

    /// One change to the payload and what the observed member `key` must then be (nil: the member is left out).
    struct ObservedRow: Sendable, CustomTestStringConvertible {
        let name: String
        let key: String
        let expected: JSON?
        let change: @Sendable (inout Situation) -> Void

        init(_ name: String, _ key: String, _ expected: JSON?, _ change: @escaping @Sendable (inout Situation) -> Void) {
            self.name = name
            self.key = key
            self.expected = expected
            self.change = change
        }

        var testDescription: String { name }

        /// Judged under ``strict``: whatever the member reads as, it gives no reason.
        func judge() -> PlayIntegrityJudgement {
            var situation = Situation()
            situation.policy = PlayIntegrityPolicyTests.strict
            change(&situation)
            return situation.judge()
        }
    }

    /// Every knob at its strictest that the passing payload still meets (LEVEL_1, NO_ISSUES, KNOWN_INSTALLED,
    /// version code 42, not a testing response): an odd member that read as anything but absent would show.
    static let strict: PlayIntegrityPolicy = {
        var policy = PlayIntegrityPolicy()
        policy.minimumVersionCode = [Situation.packageName: 42]
        policy.maximumActivityLevel = 1
        policy.playProtect = 0
        policy.appsDetected = Set(PlayIntegrityPolicyTests.appsDetectedValues.filter { $0 != "KNOWN_INSTALLED" })
        policy.rejectTestingResponses = true
        policy.refuseUnusualAccountActivity = true
        return policy
    }()

    @Test func thePassingPayloadMeetsTheStrictPolicy() {
        var situation = Situation()
        situation.policy = Self.strict
        situation.isProduction = true
        #expect(situation.judge().verdict == .verified)
    }

    static let recallPath = "deviceIntegrity.deviceRecall"

    /// The forms Google may send of the new members, and each `deviceRecall` date that is no `YYYYMM`.
    static let observedForms: [ObservedRow] = [
        ObservedRow("versionCode as Google's string", "versionCode", 4200) { $0.payload.versionCode = 4200 },
        ObservedRow("versionCode as a number", "versionCode", 4200) { $0.set("appIntegrity.versionCode", .int(4200)) },
        ObservedRow("requestPackageName", "requestPackageName", "com.example.app") { _ in },
        ObservedRow("legacyDeviceRecognitionVerdict", "legacyDeviceRecognitionVerdict", ["MEETS_DEVICE_INTEGRITY"]) {
            $0.payload.legacyDeviceRecognitionVerdict = ["MEETS_DEVICE_INTEGRITY"]
        },
        ObservedRow("sdkVersion", "sdkVersion", 34) { _ in },
        ObservedRow("accountActivity", "accountActivity", "TYPICAL_BASIC") { $0.payload.accountActivity = "TYPICAL_BASIC" },
        ObservedRow("isTestingResponse false", "isTestingResponse", false) { $0.payload.isTestingResponse = false },
        ObservedRow("locationSpoofingRisk as a list", "locationSpoofingRisk", ["HIGH_RISK", "NO_RISK"]) {
            $0.set("environmentDetails.locationSpoofingRiskVerdict", ["HIGH_RISK", "NO_RISK"])
        },
        ObservedRow("locationSpoofingRisk as a single string", "locationSpoofingRisk", ["HIGH_RISK"]) {
            $0.set("environmentDetails.locationSpoofingRiskVerdict", "HIGH_RISK")
        },
        ObservedRow("otherApps when sent", "otherApps", "INSTALLED") {
            $0.set("environmentDetails.appAccessRiskVerdict.otherApps", "INSTALLED")
        },
        ObservedRow("playOrSystemApps when sent", "playOrSystemApps", "CAPTURING") {
            $0.set("environmentDetails.appAccessRiskVerdict.playOrSystemApps", "CAPTURING")
        },
        ObservedRow("otherApps left out when not sent", "otherApps", nil) { _ in },
        ObservedRow("deviceRecall with numeric dates", "deviceRecall", recall([true, false, true], ["202401", "202310", "202405"])) {
            $0.set(recallPath, fullRecall)
        },
        ObservedRow("deviceRecall with string dates", "deviceRecall", recall([true, false, true], ["202401", "202310", "202405"])) {
            $0.set(recallPath, written("202401", "202310", "202405"))
        },
        ObservedRow("deviceRecall without writeDates", "deviceRecall", recall([true, true, true], [nil, nil, nil])) {
            $0.set(recallPath, ["values": ["bitFirst": true, "bitSecond": true, "bitThird": true]])
        },
        ObservedRow("deviceRecall with one write date", "deviceRecall", recall([true, false, false], ["202401", nil, nil])) {
            $0.set(recallPath, ["values": ["bitFirst": true, "bitSecond": false, "bitThird": false],
                                "writeDates": ["yyyymmFirst": 202401]])
        },
        ObservedRow("deviceRecall with a missing bit", "deviceRecall", recall([true, nil, false], [nil, nil, nil])) {
            $0.set(recallPath, ["values": ["bitFirst": true, "bitThird": false]])
        },
        ObservedRow("deviceRecall empty", "deviceRecall", recall([nil, nil, nil], [nil, nil, nil])) {
            $0.set(recallPath, [:])
        },
        ObservedRow("a 5-digit write date", "deviceRecall", recall([true, false, true], [nil, "202310", "202405"])) {
            $0.set(recallPath, written(20241, 202310, 202405))
        },
        ObservedRow("a 7-digit write date", "deviceRecall", recall([true, false, true], ["202401", nil, "202405"])) {
            $0.set(recallPath, written(202401, "2023100", 202405))
        },
        ObservedRow("a non-numeric write date", "deviceRecall", recall([true, false, true], ["202401", "202310", nil])) {
            $0.set(recallPath, written(202401, 202310, "2024AB"))
        },
        ObservedRow("a negative write date", "deviceRecall", recall([true, false, true], [nil, "202310", "202405"])) {
            $0.set(recallPath, written(-20241, 202310, 202405))
        },
        ObservedRow("a fractional write date", "deviceRecall", recall([true, false, true], [nil, "202310", "202405"])) {
            $0.set(recallPath, written(202401.5, 202310, 202405))
        },
    ]

    @Test(arguments: observedForms)
    func newMembersAreObservedWhateverTheirForm(row: ObservedRow) {
        let judgement = row.judge()
        #expect(judgement.verdict == .verified)
        #expect(judgement.observed.json[row.key] == row.expected)
    }

    /// Members of the wrong type: never a crash, never a reason, observed as absent.
    static let wrongTypes: [ObservedRow] = [
        ObservedRow("versionCode as an object", "versionCode", .null) { $0.set("appIntegrity.versionCode", ["value": 42]) },
        ObservedRow("versionCode as a boolean", "versionCode", .null) { $0.set("appIntegrity.versionCode", true) },
        ObservedRow("versionCode with a letter", "versionCode", .null) { $0.set("appIntegrity.versionCode", "42x") },
        ObservedRow("versionCode with a fraction", "versionCode", .null) { $0.set("appIntegrity.versionCode", 42.5) },
        ObservedRow("requestPackageName as a number", "requestPackageName", .null) { $0.set("requestDetails.requestPackageName", 7) },
        ObservedRow("legacyDeviceRecognitionVerdict as an object", "legacyDeviceRecognitionVerdict", []) {
            $0.set("deviceIntegrity.legacyDeviceRecognitionVerdict", ["MEETS_DEVICE_INTEGRITY": true])
        },
        ObservedRow("legacyDeviceRecognitionVerdict as a string", "legacyDeviceRecognitionVerdict", []) {
            $0.set("deviceIntegrity.legacyDeviceRecognitionVerdict", "MEETS_DEVICE_INTEGRITY")
        },
        ObservedRow("a number among the device verdicts", "deviceRecognitionVerdict", ["MEETS_DEVICE_INTEGRITY"]) {
            $0.set("deviceIntegrity.deviceRecognitionVerdict", [5, "MEETS_DEVICE_INTEGRITY"])
        },
        ObservedRow("sdkVersion as an object", "sdkVersion", .null) { $0.set("deviceIntegrity.deviceAttributes.sdkVersion", ["v": 34]) },
        ObservedRow("sdkVersion as a boolean", "sdkVersion", .null) { $0.set("deviceIntegrity.deviceAttributes.sdkVersion", true) },
        ObservedRow("sdkVersion with a fraction", "sdkVersion", .null) { $0.set("deviceIntegrity.deviceAttributes.sdkVersion", 34.5) },
        ObservedRow("deviceAttributes as a string", "sdkVersion", .null) { $0.set("deviceIntegrity.deviceAttributes", "34") },
        ObservedRow("deviceRecall as a list", "deviceRecall", .null) { $0.set(recallPath, [true, false, true]) },
        ObservedRow("deviceRecall as a number", "deviceRecall", .null) { $0.set(recallPath, 5) },
        ObservedRow("deviceRecall values and dates as lists", "deviceRecall", recall([nil, nil, nil], [nil, nil, nil])) {
            $0.set(recallPath, ["values": [true, false, true], "writeDates": [202401, 202310, 202405]])
        },
        ObservedRow("deviceRecall bits as numbers", "deviceRecall", recall([nil, nil, true], [nil, nil, nil])) {
            $0.set(recallPath, ["values": ["bitFirst": 1, "bitSecond": "false", "bitThird": true]])
        },
        ObservedRow("accountActivity level as a number", "accountActivity", .null) {
            $0.set("accountDetails.accountActivity.activityLevel", 5)
        },
        ObservedRow("accountActivity as a string", "accountActivity", .null) { $0.set("accountDetails.accountActivity", "UNUSUAL") },
        ObservedRow("locationSpoofingRiskVerdict as an object", "locationSpoofingRisk", []) {
            $0.set("environmentDetails.locationSpoofingRiskVerdict", ["HIGH_RISK": true])
        },
        ObservedRow("locationSpoofingRiskVerdict as a number", "locationSpoofingRisk", []) {
            $0.set("environmentDetails.locationSpoofingRiskVerdict", 3)
        },
        ObservedRow("isTestingResponse as a string", "isTestingResponse", .null) { $0.set("testingDetails.isTestingResponse", "true") },
        ObservedRow("isTestingResponse as a number", "isTestingResponse", .null) { $0.set("testingDetails.isTestingResponse", 1) },
        ObservedRow("testingDetails as a list", "isTestingResponse", .null) { $0.set("testingDetails", [true]) },
        ObservedRow("otherApps as a number", "otherApps", nil) { $0.set("environmentDetails.appAccessRiskVerdict.otherApps", 3) },
        ObservedRow("playOrSystemApps as a list", "playOrSystemApps", nil) {
            $0.set("environmentDetails.appAccessRiskVerdict.playOrSystemApps", ["CAPTURING"])
        },
        ObservedRow("deviceActivityLevel as a number", "deviceActivityLevel", .null) {
            $0.set("deviceIntegrity.recentDeviceActivity.deviceActivityLevel", 4)
        },
        ObservedRow("playProtectVerdict as a number", "playProtectVerdict", .null) { $0.set("environmentDetails.playProtectVerdict", 4) },
        ObservedRow("appsDetected as a string", "appsDetected", []) {
            $0.set("environmentDetails.appAccessRiskVerdict.appsDetected", "UNKNOWN_CAPTURING")
        },
        ObservedRow("appLicensingVerdict as a number", "appLicensingVerdict", .null) { $0.set("accountDetails.appLicensingVerdict", 0) },
    ]

    @Test(arguments: wrongTypes)
    func membersOfTheWrongTypeReadAsAbsent(row: ObservedRow) {
        let judgement = row.judge()
        #expect(judgement.verdict == .verified)
        #expect(judgement.observed.json[row.key] == row.expected)
    }

    /// Values Google may add to known members: observed as sent, no reason even under the strict policy.
    static let unknownValues: [ObservedRow] = [
        ObservedRow("deviceActivityLevel LEVEL_9", "deviceActivityLevel", "LEVEL_9") { $0.payload.deviceActivityLevel = "LEVEL_9" },
        ObservedRow("deviceActivityLevel UNEVALUATED", "deviceActivityLevel", "UNEVALUATED") { $0.payload.deviceActivityLevel = "UNEVALUATED" },
        ObservedRow("playProtectVerdict SEVERE_RISK", "playProtectVerdict", "SEVERE_RISK") { $0.payload.playProtectVerdict = "SEVERE_RISK" },
        ObservedRow("playProtectVerdict UNEVALUATED", "playProtectVerdict", "UNEVALUATED") { $0.payload.playProtectVerdict = "UNEVALUATED" },
        ObservedRow("appsDetected UNKNOWN_TELEPORTING", "appsDetected", ["KNOWN_INSTALLED", "UNKNOWN_TELEPORTING"]) {
            $0.payload.appsDetected = ["KNOWN_INSTALLED", "UNKNOWN_TELEPORTING"]
        },
        ObservedRow("accountActivity SUSPICIOUS", "accountActivity", "SUSPICIOUS") { $0.payload.accountActivity = "SUSPICIOUS" },
        ObservedRow("appLicensingVerdict PENDING", "appLicensingVerdict", "PENDING") { $0.payload.appLicensingVerdict = "PENDING" },
        ObservedRow("legacy MEETS_QUANTUM_INTEGRITY", "legacyDeviceRecognitionVerdict", ["MEETS_QUANTUM_INTEGRITY"]) {
            $0.payload.legacyDeviceRecognitionVerdict = ["MEETS_QUANTUM_INTEGRITY"]
        },
        ObservedRow("device verdict MEETS_QUANTUM_INTEGRITY beside device", "deviceRecognitionVerdict",
                    ["MEETS_DEVICE_INTEGRITY", "MEETS_QUANTUM_INTEGRITY"]) {
            $0.payload.deviceRecognitionVerdict = ["MEETS_DEVICE_INTEGRITY", "MEETS_QUANTUM_INTEGRITY"]
        },
        ObservedRow("locationSpoofingRisk SOMEWHERE_ELSE", "locationSpoofingRisk", ["SOMEWHERE_ELSE"]) {
            $0.set("environmentDetails.locationSpoofingRiskVerdict", "SOMEWHERE_ELSE")
        },
        ObservedRow("otherApps TELEPORTING", "otherApps", "TELEPORTING") {
            $0.set("environmentDetails.appAccessRiskVerdict.otherApps", "TELEPORTING")
        },
    ]

    @Test(arguments: unknownValues)
    func unknownValuesAreObservedAsSentAndGiveNoReason(row: ObservedRow) {
        let judgement = row.judge()
        #expect(judgement.verdict == .verified)
        #expect(judgement.observed.json[row.key] == row.expected)
    }
}

extension JSON {
    /// This object with the member at `path` replaced by `value`, or removed when `value` is nil; objects missing on
    /// the way are made.
    fileprivate func replacing(_ path: ArraySlice<Substring>, with value: JSON?) -> JSON {
        guard let first = path.first else { return value ?? .null }
        let key = String(first)
        var members = self.members ?? []
        let index = members.lastIndex { $0.key == key }
        let replacement: JSON?
        if path.count == 1 {
            replacement = value
        } else {
            let inner = index.map { members[$0].value } ?? .object([])
            replacement = inner.replacing(path.dropFirst(), with: value)
        }
        if let index {
            if let replacement { members[index].value = replacement } else { members.remove(at: index) }
        } else if let replacement {
            members.append(JSON.Member(key, replacement))
        }
        return .object(members)
    }
}
