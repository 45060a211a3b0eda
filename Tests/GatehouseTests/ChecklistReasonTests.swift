import Testing
@testable import Gatehouse

@Suite("Checklist: which reasons are setup reasons")
struct ChecklistReasonTests {
    static let deviceReasons = [
        "deviceIntegrityNotMet", "virtualDevice", "basicIntegrityOnly", "playProtect:HIGH_RISK",
        "playProtect:MEDIUM_RISK", "controllingAppDetected", "capturingAppDetected", "highDeviceActivity",
        "staleVerdict", "verdictReplayed", "counterReused", "counterRegression", "oneKeyManyDevices",
        "requestMismatch", "unknownKeyId", "missingKeyId", "assertionInvalid", "certificateChainInvalid",
        "nonceMismatch", "packageMismatch", "googleUnreachable", "someReasonNobodyKnowsYet", "",
    ]

    @Test("a device reason on every verdict of both providers never makes a setup item", arguments: deviceReasons)
    func deviceReasonIsNeverSetup(_ reason: String) {
        #expect(SetupReason(reason: reason, provider: "play-integrity") == nil)
        #expect(SetupReason(reason: reason, provider: "app-attest") == nil)
        var rows: [VerdictRollup] = []
        for provider in ["play-integrity", "app-attest"] {
            for status in ["forged", "rejected", "unavailable"] {
                rows += F.rollups(provider, [F.Group(
                    status: status, reasons: [reason], count: 1_000,
                    observed: [F.digest(F.strangerDigest, 1_000), F.package("com.evil", 1_000),
                               F.appId("EVIL000000.com.evil", 1_000)])])
            }
        }
        let report = F.evaluate(F.complete, rows)
        #expect(report.items.allSatisfy { $0.status == .ok }, "\(report.items.filter { $0.status != .ok }.map(\.id))")
        for id in F.trafficIDs { #expect(report.item(id)?.evidence.failing == 0) }
    }

    @Test("a setup reason from the other provider is not a setup fault",
          arguments: [("developmentKey", "play-integrity"), ("appIdNotRegistered", "play-integrity"),
                      ("certificateMismatch", "app-attest"), ("notConfigured", "app-attest"),
                      ("decryptionFailed", "app-attest")])
    func wrongProvider(_ pair: (String, String)) {
        #expect(SetupReason(reason: pair.0, provider: pair.1) == nil)
        let rows = F.week(pair.1, verified: 0, failing: 500, status: "rejected", reasons: [pair.0])
        let report = F.evaluate(F.complete, rows)
        #expect(F.trafficIDs.allSatisfy { report.item($0)?.status == .ok })
    }

    @Test("every setup reason maps to exactly one item of its provider, and every item has a reason")
    func theTable() {
        for reason in SetupReason.allCases {
            #expect(SetupReason(reason: reason.reason, provider: reason.provider) == reason)
            #expect(reason.item.reasons.contains(reason))
            #expect(reason.item.provider == reason.provider)
        }
        for item in SetupItem.allCases { #expect(!item.reasons.isEmpty) }
        #expect(SetupReason(reason: "appVerdict:UNRECOGNIZED_VERSION", provider: "play-integrity") == .unrecognizedVersion)
    }

    @Test("mixed setup reasons, none over half: warnings, no failure")
    func mixedReasons() {
        let rows = F.rollups("play-integrity", [
            F.Group(status: "verified", reasons: [], count: 10),
            F.Group(status: "rejected", reasons: ["certificateMismatch"], count: 30,
                    observed: [F.digest(F.playDigest, 30)]),
            F.Group(status: "rejected", reasons: ["packageNotRegistered"], count: 30,
                    observed: [F.package("com.example.other", 30)]),
            F.Group(status: "rejected", reasons: ["deviceIntegrityNotMet"], count: 30),
        ])
        let report = F.evaluate(F.complete, rows)
        #expect(!report.items.contains { $0.status == .fail })
        #expect(report.item("android.certificateNotRegistered")?.status == .warn)
        #expect(report.item("android.packageNotRegistered")?.status == .warn)
    }

    @Test("two reasons of one item on different verdicts add up: 30% + 30% decryption/signature fails")
    func disjointReasonsAdd() throws {
        let rows = F.rollups("play-integrity", [
            F.Group(status: "verified", reasons: [], count: 40),
            F.Group(status: "forged", reasons: ["decryptionFailed"], count: 30),
            F.Group(status: "forged", reasons: ["signatureInvalid"], count: 30),
        ])
        let item = try #require(F.evaluate(F.complete, rows).item("playIntegrity.keysNotTheApps"))
        #expect(item.status == .fail)
        #expect(item.evidence.failing == 60)
        #expect(item.evidence.reasons == ["decryptionFailed", "signatureInvalid"])
        #expect(item.detail.contains("failed with decryptionFailed or signatureInvalid"))
    }

    @Test("the sum of an item's reasons is capped at the verdicts of their status")
    func sumIsCapped() throws {
        // 40 forged verdicts carrying both reasons: the rows say 80, the verdicts are 40.
        let rows = F.rollups("play-integrity", [
            F.Group(status: "verified", reasons: [], count: 60),
            F.Group(status: "forged", reasons: ["decryptionFailed", "signatureInvalid"], count: 40),
        ])
        let item = try #require(F.evaluate(F.complete, rows).item("playIntegrity.keysNotTheApps"))
        #expect(item.evidence.failing == 40)
        #expect(item.status == .warn)
    }

    @Test("notFromPlay's two reasons come on the same verdicts: the larger count, not the sum")
    func notFromPlayTakesTheLargest() throws {
        let signed = [F.digest(F.uploadDigest, 30)]
        let rows = F.rollups("play-integrity", [
            F.Group(status: "verified", reasons: [], count: 30),
            F.Group(status: "rejected", reasons: ["appVerdict:UNRECOGNIZED_VERSION", "unlicensed"], count: 30,
                    observed: signed),
            F.Group(status: "rejected", reasons: ["deviceIntegrityNotMet"], count: 40),
        ])
        let item = try #require(F.evaluate(F.complete, rows).item("android.notFromPlay"))
        #expect(item.evidence.failing == 30)
        #expect(item.status == .warn)
    }

    @Test("verified rows never count as failing, even with a setup reason")
    func verifiedNeverFails() throws {
        let rows = F.rollups("play-integrity", [
            F.Group(status: "verified", reasons: ["certificateMismatch"], count: 100),
        ])
        let item = try #require(F.evaluate(F.complete, rows).item("android.certificateNotRegistered"))
        #expect(item.evidence.failing == 0)
        #expect(item.status == .ok)
    }

    @Test("counts at the edge of Int and negative counts do not trap")
    func hostileCounts() throws {
        let rows = [
            VerdictRollup(hour: F.lastHour, provider: "play-integrity", status: "rejected", count: .max),
            VerdictRollup(hour: F.lastHour, provider: "play-integrity", status: "rejected", count: .max),
            VerdictRollup(hour: F.lastHour, provider: "play-integrity", status: "rejected",
                          reason: "certificateMismatch", count: .max, observed: [F.digest(F.playDigest, .max)]),
            VerdictRollup(hour: F.lastHour, provider: "play-integrity", status: "rejected",
                          reason: "packageNotRegistered", count: -5),
            VerdictRollup(hour: F.lastHour, provider: "app-attest", status: "verified", count: -100),
        ]
        let report = Checklist.evaluate(configuration: F.complete, rollups: rows, now: Int64.min)
        #expect(report.windowFrom == Int64.min)
        let sane = F.evaluate(F.complete, rows)
        let item = try #require(sane.item("android.certificateNotRegistered"))
        #expect(item.status == .fail)
        #expect(item.evidence.failing == .max)
        #expect(sane.item("android.packageNotRegistered")?.evidence.failing == 0)
        #expect(sane.item("apple.noAppIds")?.evidence.verdicts == 0)
    }
}
