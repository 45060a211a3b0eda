import Testing
@testable import Gatehouse

/// One setup fault in a week of traffic, and the item it must raise.
struct SetupFaultCase: CustomTestStringConvertible, Sendable {
    var item: SetupItem
    var provider: String
    var status: String
    var reasons: [String]
    var observed: [ObservedValue]
    var configuration: ChecklistConfiguration = ChecklistFixtures.complete
    var testDescription: String { "\(item.rawValue) ← \(reasons.joined(separator: "+"))" }
}

typealias F = ChecklistFixtures

let setupFaults: [SetupFaultCase] = [
    SetupFaultCase(item: .keysNotTheApps, provider: "play-integrity", status: "forged", reasons: ["decryptionFailed"],
                   observed: [F.package("com.example.app", 60)]),
    SetupFaultCase(item: .keysNotTheApps, provider: "play-integrity", status: "forged", reasons: ["signatureInvalid"],
                   observed: []),
    SetupFaultCase(item: .certificateNotRegistered, provider: "play-integrity", status: "rejected",
                   reasons: ["certificateMismatch"], observed: [F.digest(F.playDigest, 60)]),
    SetupFaultCase(item: .packageNotRegistered, provider: "play-integrity", status: "rejected",
                   reasons: ["packageNotRegistered"], observed: [F.package("com.example.app.debug", 60)]),
    SetupFaultCase(item: .notFromPlay, provider: "play-integrity", status: "rejected",
                   reasons: ["appVerdict:UNRECOGNIZED_VERSION", "unlicensed"], observed: [F.digest(F.uploadDigest, 60)]),
    SetupFaultCase(item: .notFromPlay, provider: "play-integrity", status: "rejected", reasons: ["unlicensed"],
                   observed: [F.digest(F.uploadDigest, 60)]),
    SetupFaultCase(item: .serviceAccountRejected, provider: "play-integrity", status: "unavailable",
                   reasons: ["serviceAccountRejected"], observed: []),
    SetupFaultCase(item: .notConfiguredTraffic, provider: "play-integrity", status: "unavailable",
                   reasons: ["notConfigured"], observed: [],
                   configuration: ChecklistConfiguration(
                       androidApps: [F.app], appleAppIds: ["TEAMID1234.com.example.app"], activeSecretKeys: 1)),
    SetupFaultCase(item: .appIdNotRegistered, provider: "app-attest", status: "rejected",
                   reasons: ["appIdNotRegistered"], observed: [F.appId("A1B2C3D4E5.com.example.app", 60)]),
    SetupFaultCase(item: .developmentKey, provider: "app-attest", status: "rejected", reasons: ["developmentKey"],
                   observed: [F.appId("TEAMID1234.com.example.app", 60)]),
    SetupFaultCase(item: .bootKeyUnknown, provider: "key-attestation", status: "rejected", reasons: ["bootKeyUnknown"],
                   observed: [ObservedValue(field: "bootKey", value: "cd7479653aa88208f9f03034810ef9b7b0af8a9d41e2000e458ac403a2acb233", count: 60)]),
]

@Suite("Checklist: traffic items")
struct ChecklistTests {
    @Test("a setup fault on 60 of 100 verdicts fails its item, and only its item", arguments: setupFaults)
    func failsAtSixtyPercent(_ fault: SetupFaultCase) throws {
        let rows = F.week(fault.provider, verified: 40, failing: 60, status: fault.status, reasons: fault.reasons,
                          observed: fault.observed)
        let report = F.evaluate(fault.configuration, rows)
        let item = try #require(report.item(fault.item.rawValue))
        #expect(item.status == .fail)
        #expect(item.evidence.provider == fault.provider)
        #expect(item.evidence.verdicts == 100)
        #expect(item.evidence.failing == 60)
        #expect(item.evidence.share == 0.6)
        #expect(item.evidence.reasons == fault.reasons)
        #expect(item.detail.contains("60% of \(Provider.displayName(fault.provider)) verdicts this week (60 of 100) failed with"))
        #expect(!item.fix.isEmpty)
        for other in F.trafficIDs where other != fault.item.rawValue {
            #expect(report.item(other)?.status == .ok, "\(other) should stay ok")
        }
    }

    @Test("a setup fault on 30 of 100 verdicts warns", arguments: setupFaults)
    func warnsAtThirtyPercent(_ fault: SetupFaultCase) throws {
        let rows = F.week(fault.provider, verified: 70, failing: 30, status: fault.status, reasons: fault.reasons,
                          observed: fault.observed.map { ObservedValue(field: $0.field, value: $0.value, count: 30) })
        let item = try #require(F.evaluate(fault.configuration, rows).item(fault.item.rawValue))
        #expect(item.status == .warn)
        #expect(item.evidence.failing == 30)
        #expect(item.detail.contains("30% of \(Provider.displayName(fault.provider)) verdicts this week (30 of 100)"))
        #expect(!item.fix.isEmpty)
    }

    @Test("a setup fault on 10 of 100 verdicts is ok, with its counts", arguments: setupFaults)
    func okAtTenPercent(_ fault: SetupFaultCase) throws {
        let rows = F.week(fault.provider, verified: 90, failing: 10, status: fault.status, reasons: fault.reasons,
                          observed: fault.observed.map { ObservedValue(field: $0.field, value: $0.value, count: 10) })
        let item = try #require(F.evaluate(fault.configuration, rows).item(fault.item.rawValue))
        #expect(item.status == .ok)
        #expect(item.evidence.failing == 10)
        #expect(item.evidence.verdicts == 100)
        #expect(item.fix.isEmpty)
        #expect(item.detail.contains("too few"))
    }

    @Test("every traffic item is present and ok without traffic")
    func presentWithoutTraffic() throws {
        let report = F.evaluate(F.complete, [])
        for id in F.trafficIDs {
            let item = try #require(report.item(id))
            #expect(item.status == .ok)
            #expect(item.evidence.verdicts == 0)
            #expect(item.evidence.share == 0)
        }
        #expect(report.items.count == F.trafficIDs.count + ChecklistConfigurationTests.configurationIDs.count)
        #expect(Set(report.items.map(\.id)).count == report.items.count)
    }

    @Test("the example sentence: 83% of Play Integrity verdicts (1,204 of 1,450) failed with certificateMismatch")
    func exampleSentence() throws {
        let rows = F.week("play-integrity", verified: 246, failing: 1_204, status: "rejected",
                          reasons: ["certificateMismatch"],
                          observed: [F.digest(F.playDigest, 1_180), F.digest(F.strangerDigest, 24),
                                     F.package("com.example.app", 1_204)])
        let item = try #require(F.evaluate(F.complete, rows).item("android.certificateNotRegistered"))
        #expect(item.status == .fail)
        #expect(item.detail.hasPrefix(
            "83% of Play Integrity verdicts this week (1,204 of 1,450) failed with certificateMismatch."))
        #expect(item.detail.contains("\(F.playDigest) (1,180 verdicts)"))
        #expect(item.detail.contains("registered for com.example.app: \(F.uploadDigest)"))
        #expect(item.detail.contains("Play app-signing key"))
        #expect(item.detail.contains("upload key"))
        #expect(item.detail.contains("App integrity → App signing"))
        #expect(item.fix.contains("Add \(F.playDigest) to the certificate digests of com.example.app"))
        #expect(item.evidence.observed.map(\.value) == [F.playDigest, F.strangerDigest])
        #expect(item.evidence.registered == [F.uploadDigest])
    }
}
