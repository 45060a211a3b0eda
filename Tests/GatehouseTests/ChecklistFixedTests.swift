import Testing
@testable import Gatehouse

/// A setup fault seen in the week's traffic, and the configuration that fixes it.
struct FixedCase: CustomTestStringConvertible, Sendable {
    var fault: SetupFaultCase
    var fixed: ChecklistConfiguration
    var detail: String
    var testDescription: String { fault.item.rawValue }
}

let fixedCases: [FixedCase] = {
    var certificate = F.complete
    certificate.androidApps = [AndroidAppSetup(packageName: "com.example.app", certificateDigests: [F.uploadDigest, F.playDigest])]
    var package = F.complete
    package.androidApps.append(AndroidAppSetup(packageName: "com.example.app.debug", certificateDigests: [F.uploadDigest]))
    var appID = F.complete
    appID.appleAppIds.append("A1B2C3D4E5.com.example.app")
    var outsidePlay = F.complete
    outsidePlay.androidApps = [AndroidAppSetup(packageName: "com.example.app", certificateDigests: [F.uploadDigest], outsidePlay: true)]
    var decoding = ChecklistConfiguration(androidApps: [F.app], appleAppIds: ["TEAMID1234.com.example.app"], activeSecretKeys: 1)
    decoding.serviceAccountSet = true
    let faults = Dictionary(setupFaults.map { ($0.item, $0) }, uniquingKeysWith: { first, _ in first })
    func fault(_ item: SetupItem) -> SetupFaultCase { faults[item] ?? setupFaults[0] }
    var certificateFault = fault(.certificateNotRegistered)
    certificateFault.observed.append(F.package("com.example.app", 60))
    return [
        FixedCase(fault: certificateFault, fixed: certificate,
                  detail: "Fixed: phones report \(F.playDigest), which is now registered for com.example.app; the 60 earlier verdicts are from before the change."),
        FixedCase(fault: fault(.packageNotRegistered), fixed: package,
                  detail: "Fixed: phones run com.example.app.debug, which is now registered; the 60 earlier verdicts are from before the change."),
        FixedCase(fault: fault(.appIdNotRegistered), fixed: appID,
                  detail: "Fixed: phones attest A1B2C3D4E5.com.example.app, which is now registered; the 60 earlier verdicts are from before the change."),
        FixedCase(fault: fault(.notFromPlay), fixed: outsidePlay,
                  detail: "Fixed: builds signed with \(F.uploadDigest) come from outside Google Play, and com.example.app is now marked \"outsidePlay\"; the 60 earlier verdicts are from before the change."),
        FixedCase(fault: fault(.notConfiguredTraffic), fixed: decoding,
                  detail: "Fixed: a service account is now set to decode Play Integrity verdicts; the 60 earlier verdicts are from before the change."),
    ]
}()

@Suite("Checklist: items fixed in the configuration turn ok at once")
struct ChecklistFixedTests {
    @Test("the fault fails before the fix and is ok, saying so, right after it", arguments: fixedCases)
    func fixedIsOk(_ case_: FixedCase) throws {
        let fault = case_.fault
        let rows = F.week(fault.provider, verified: 40, failing: 60, status: fault.status, reasons: fault.reasons,
                          observed: fault.observed)
        let before = try #require(F.evaluate(fault.configuration, rows).item(fault.item.rawValue))
        #expect(before.status == .fail)
        let after = try #require(F.evaluate(case_.fixed, rows).item(fault.item.rawValue))
        #expect(after.status == .ok)
        #expect(after.detail == case_.detail)
        #expect(after.title.hasPrefix("Fixed: "))
        #expect(after.fix.isEmpty)
        #expect(after.evidence.failing == 60)
        #expect(after.evidence.verdicts == 100)
    }

    @Test("a certificate still unregistered beside the fixed one keeps the item failing")
    func partlyFixedCertificateStillFails() throws {
        var configuration = F.complete
        configuration.androidApps = [AndroidAppSetup(packageName: "com.example.app", certificateDigests: [F.uploadDigest, F.playDigest])]
        let rows = F.week("play-integrity", verified: 40, failing: 60, status: "rejected", reasons: ["certificateMismatch"],
                          observed: [F.digest(F.playDigest, 40), F.digest(F.strangerDigest, 20), F.package("com.example.app", 60)])
        let item = try #require(F.evaluate(configuration, rows).item("android.certificateNotRegistered"))
        #expect(item.status == .fail)
        #expect(!item.detail.hasPrefix("Fixed"))
    }

    @Test("a certificate registered for another package than the one phones run is not a fix")
    func certificateForAnotherPackageIsNoFix() throws {
        var configuration = F.complete
        configuration.androidApps = [F.app, AndroidAppSetup(packageName: "com.example.other", certificateDigests: [F.playDigest])]
        let rows = F.week("play-integrity", verified: 40, failing: 60, status: "rejected", reasons: ["certificateMismatch"],
                          observed: [F.digest(F.playDigest, 60), F.package("com.example.app", 60)])
        let item = try #require(F.evaluate(configuration, rows).item("android.certificateNotRegistered"))
        #expect(item.status == .fail)
        #expect(item.fix.contains("as well"))
    }

    @Test("failures the thresholds let pass are not called fixed")
    func okTrafficIsNotFixed() throws {
        var configuration = F.complete
        configuration.androidApps = [AndroidAppSetup(packageName: "com.example.app", certificateDigests: [F.uploadDigest, F.playDigest])]
        let rows = F.week("play-integrity", verified: 90, failing: 10, status: "rejected", reasons: ["certificateMismatch"],
                          observed: [F.digest(F.playDigest, 10)])
        let item = try #require(F.evaluate(configuration, rows).item("android.certificateNotRegistered"))
        #expect(item.status == .ok)
        #expect(!item.detail.contains("Fixed"))
    }

    @Test("one earlier verdict reads in the singular")
    func singular() {
        #expect(Checklist.earlier(1) == "the 1 earlier verdict is from before the change.")
        #expect(Checklist.earlier(1_204) == "the 1,204 earlier verdicts are from before the change.")
    }
}
