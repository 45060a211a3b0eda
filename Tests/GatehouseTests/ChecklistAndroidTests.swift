import Testing
@testable import Gatehouse

@Suite("Checklist: Android setup faults in detail")
struct ChecklistAndroidTests {
    static let unlicensedReasons = ["appVerdict:UNRECOGNIZED_VERSION", "unlicensed"]

    @Test("notFromPlay does not fire for a certificate that is not registered: that is a mismatch's business")
    func notFromPlayIgnoresStrangers() throws {
        let rows = F.week("play-integrity", verified: 0, failing: 100, status: "rejected",
                          reasons: Self.unlicensedReasons, observed: [F.digest(F.strangerDigest, 100)])
        let item = try #require(F.evaluate(F.complete, rows).item("android.notFromPlay"))
        #expect(item.status == .ok)
        #expect(item.evidence.failing == 0)
        #expect(item.evidence.observed.isEmpty)
    }

    @Test("notFromPlay counts only the verdicts with a registered certificate")
    func notFromPlayCountsRegisteredOnly() throws {
        let rows = F.week("play-integrity", verified: 0, failing: 100, status: "rejected",
                          reasons: Self.unlicensedReasons,
                          observed: [F.digest(F.strangerDigest, 70), F.digest(F.uploadDigest, 30)])
        let item = try #require(F.evaluate(F.complete, rows).item("android.notFromPlay"))
        #expect(item.evidence.failing == 30)
        #expect(item.status == .warn)
        #expect(item.evidence.observed == [F.digest(F.uploadDigest, 30)])
        #expect(item.evidence.registered == [F.uploadDigest])
        #expect(item.detail.contains("signed with a registered certificate"))
        #expect(item.detail.contains("\(F.uploadDigest) (30 verdicts), registered for com.example.app"))
        #expect(item.fix.contains("mark it \"outsidePlay\": true"))
        #expect(item.fix.contains("com.example.app"))
    }

    @Test("notFromPlay does not fire for an app already marked outsidePlay")
    func notFromPlayRespectsOutsidePlay() throws {
        var configuration = F.complete
        configuration.androidApps = [AndroidAppSetup(
            packageName: "com.example.app", certificateDigests: [F.uploadDigest], outsidePlay: true)]
        let signed = F.week("play-integrity", verified: 0, failing: 100, status: "rejected",
                            reasons: Self.unlicensedReasons, observed: [F.digest(F.uploadDigest, 100)])
        let unsigned = F.week("play-integrity", verified: 0, failing: 100, status: "rejected",
                              reasons: Self.unlicensedReasons)
        // Such verdicts cannot come after the mark (the engine no longer holds the app to Play), so they read as
        // from before it: ok, and the detail says it was fixed.
        for rows in [signed, unsigned] {
            let item = try #require(F.evaluate(configuration, rows).item("android.notFromPlay"))
            #expect(item.status == .ok)
            #expect(item.detail.hasPrefix("Fixed: "))
            #expect(item.fix.isEmpty)
        }
    }

    @Test("notFromPlay counts verdicts that observed no digest, and says so")
    func notFromPlayWithoutDigest() throws {
        let rows = F.week("play-integrity", verified: 40, failing: 60, status: "rejected",
                          reasons: Self.unlicensedReasons)
        let item = try #require(F.evaluate(F.complete, rows).item("android.notFromPlay"))
        #expect(item.status == .fail)
        #expect(item.evidence.failing == 60)
        #expect(item.detail.contains("60 of these verdicts reported no certificate digest"))
    }

    @Test("a certificate registered for another app is named as such")
    func certificateOfAnotherApp() throws {
        var configuration = F.complete
        configuration.androidApps.append(AndroidAppSetup(packageName: "com.example.lite",
                                                         certificateDigests: [F.playDigest]))
        let rows = F.week("play-integrity", verified: 0, failing: 100, status: "rejected",
                          reasons: ["certificateMismatch"],
                          observed: [F.digest(F.playDigest, 100), F.package("com.example.app", 100)])
        let item = try #require(F.evaluate(configuration, rows).item("android.certificateNotRegistered"))
        #expect(item.status == .fail)
        #expect(item.evidence.registered == [F.uploadDigest])
        #expect(item.detail.contains("registered for com.example.lite but not for com.example.app"))
        #expect(item.fix == "Add \(F.playDigest) to the certificate digests of com.example.app as well.")
    }

    @Test("without an observed package, a mismatch compares with every registered digest")
    func certificateAgainstAllApps() throws {
        var configuration = F.complete
        configuration.androidApps.append(AndroidAppSetup(packageName: "com.example.lite",
                                                         certificateDigests: [F.strangerDigest, F.uploadDigest]))
        let rows = F.week("play-integrity", verified: 0, failing: 100, status: "rejected",
                          reasons: ["certificateMismatch"], observed: [F.digest(F.playDigest, 100)])
        let item = try #require(F.evaluate(configuration, rows).item("android.certificateNotRegistered"))
        #expect(item.evidence.registered == [F.uploadDigest, F.strangerDigest])
        #expect(item.detail.contains("not registered; registered: \(F.uploadDigest), \(F.strangerDigest)"))
    }

    @Test("a package that is a build variant of a registered one is named so")
    func packageVariant() throws {
        let rows = F.week("play-integrity", verified: 0, failing: 100, status: "rejected",
                          reasons: ["packageNotRegistered"], observed: [F.package("com.example.app.debug", 100)])
        let item = try #require(F.evaluate(F.complete, rows).item("android.packageNotRegistered"))
        #expect(item.status == .fail)
        #expect(item.detail.contains("Phones run com.example.app.debug (100 verdicts), which this environment has "
            + "not registered; registered: com.example.app."))
        #expect(item.detail.contains("build variant of com.example.app"))
        #expect(item.fix.contains("Register com.example.app.debug"))
        #expect(item.evidence.registered == ["com.example.app"])
    }

    @Test("keys not the app's: the fix says where the keys are")
    func keysWording() throws {
        let rows = F.week("play-integrity", verified: 10, failing: 90, status: "forged",
                          reasons: ["decryptionFailed"], observed: [F.package("com.example.app", 90)])
        let item = try #require(F.evaluate(F.complete, rows).item("playIntegrity.keysNotTheApps"))
        #expect(item.status == .fail)
        #expect(item.detail.contains("90% of Play Integrity verdicts this week (90 of 100) failed with decryptionFailed"))
        #expect(item.detail.contains("every genuine phone"))
        #expect(item.fix.contains("App integrity → Response encryption → Manage and download keys"))
        #expect(item.fix.contains("com.example.app"))
    }

    @Test("notConfigured traffic with response keys only says standard requests need a service account")
    func localKeysOnly() throws {
        var configuration = F.complete
        configuration.serviceAccountSet = false
        let rows = F.week("play-integrity", verified: 10, failing: 90, status: "unavailable",
                          reasons: ["notConfigured"])
        let item = try #require(F.evaluate(configuration, rows).item("playIntegrity.notConfiguredTraffic"))
        #expect(item.status == .fail)
        #expect(item.detail.contains("classic requests only"))
        #expect(item.fix.hasPrefix("Add a service account"))
    }
}
