import Testing
@testable import Gatehouse

@Suite("Checklist: configuration items")
struct ChecklistConfigurationTests {
    static let configurationIDs = [
        "android.noApps", "android.noDigests", "playIntegrity.notConfigured", "android.googleQuota", "apple.noAppIds",
        "keys.noSecretKey", "attackMode.nothingToProve", "debugTokens.production", "appAttest.deviceCheckKey", "appAttest.riskMetric",
        "appAttest.validationCategory", "appAttest.receipts", "android.versionCode", "android.testingResponses", "android.strongIntegrity",
        "keyAttestation.revocationList", "keyAttestation.patchLevel", "keyAttestation.softwareKeys",
    ]

    /// An iOS-only team: an app id, a key, attack mode on, App Attest traffic.
    static let iosOnly = ChecklistConfiguration(
        kind: "production", attackMode: true, appleAppIds: ["TEAMID1234.com.example.app"], activeSecretKeys: 1)

    /// An Android-only team: an app with digests, a service account, attack mode on.
    static let androidOnly = ChecklistConfiguration(
        kind: "production", attackMode: true, androidApps: [F.app], serviceAccountSet: true, activeSecretKeys: 2)

    @Test("an iOS-only team sees nothing red or yellow, and no Android item says otherwise")
    func iosOnlyTeam() throws {
        let rows = F.week("app-attest", verified: 500, failing: 3, status: "rejected", reasons: ["counterReused"])
        let report = F.evaluate(Self.iosOnly, rows)
        #expect(report.items.allSatisfy { $0.status == .ok }, "\(report.items.filter { $0.status != .ok }.map(\.id))")
        let android = try #require(report.item("android.noApps"))
        #expect(android.title == "No Android app registered")
        #expect(android.detail.contains("iOS only"))
        let attack = try #require(report.item("attackMode.nothingToProve"))
        #expect(attack.detail.contains("iPhones (App Attest)"))
        #expect(attack.detail.contains("a request that says it is Android is challenged"), "\(attack.detail)")
    }

    @Test("an Android-only team sees nothing red or yellow")
    func androidOnlyTeam() throws {
        let rows = F.week("play-integrity", verified: 500, failing: 3, status: "rejected",
                          reasons: ["deviceIntegrityNotMet"])
        let report = F.evaluate(Self.androidOnly, rows)
        #expect(report.items.allSatisfy { $0.status == .ok }, "\(report.items.filter { $0.status != .ok }.map(\.id))")
        #expect(report.item("apple.noAppIds")?.detail.contains("Android only") == true)
        #expect(report.item("keys.noSecretKey")?.title == "2 active secret keys")
    }

    @Test("a platform's verdicts with nothing registered for it fail, naming what phones reported")
    func trafficWithoutRegistration() throws {
        let android = F.week("play-integrity", verified: 0, failing: 12, status: "rejected",
                             reasons: ["packageNotRegistered"], observed: [F.package("com.example.app", 12)])
        let ios = F.week("app-attest", verified: 0, failing: 7, status: "rejected",
                         reasons: ["appIdNotRegistered"], observed: [F.appId("TEAMID1234.com.example.app", 7)])
        let forAndroid = F.evaluate(Self.iosOnly, android).item("android.noApps")
        #expect(forAndroid?.status == .fail)
        #expect(forAndroid?.detail.contains("12 Play Integrity verdicts arrived this week") == true)
        #expect(forAndroid?.fix.contains("Register com.example.app") == true)
        let forApple = F.evaluate(Self.androidOnly, ios).item("apple.noAppIds")
        #expect(forApple?.status == .fail)
        #expect(forApple?.detail.contains("7 App Attest verdicts arrived this week") == true)
        #expect(forApple?.fix == "Register TEAMID1234.com.example.app under Apple app ids.")
    }

    @Test("nothing registered on either platform warns on both")
    func nothingAnywhere() {
        let report = F.evaluate(ChecklistConfiguration(activeSecretKeys: 1), [])
        #expect(report.item("android.noApps")?.status == .warn)
        #expect(report.item("apple.noAppIds")?.status == .warn)
        #expect(report.item("android.noDigests")?.status == .ok)
        #expect(report.item("playIntegrity.notConfigured")?.status == .ok)
    }

    @Test("an app without digests fails, named")
    func appWithoutDigests() throws {
        var configuration = F.complete
        configuration.androidApps.append(AndroidAppSetup(packageName: "com.example.lite"))
        let item = try #require(F.evaluate(configuration, []).item("android.noDigests"))
        #expect(item.status == .fail)
        #expect(item.title == "com.example.lite has no signing certificate registered")
        #expect(item.evidence.registered == ["com.example.lite"])
        #expect(item.fix.contains("App integrity → App signing"))
    }

    @Test("Play Integrity without a way to decode: warn without traffic, fail with it, ok when set",
          arguments: [(false, false, 0, ChecklistStatus.warn), (false, false, 5, .fail), (true, false, 5, .ok),
                      (false, true, 0, .ok), (true, true, 0, .ok)])
    func playIntegrityDecoding(_ row: (Bool, Bool, Int, ChecklistStatus)) {
        var configuration = F.complete
        configuration.serviceAccountSet = row.0
        configuration.localKeysSet = row.1
        let rows = row.2 == 0 ? [] : F.week("play-integrity", verified: 0, failing: row.2, status: "unavailable",
                                            reasons: ["notConfigured"])
        #expect(F.evaluate(configuration, rows).item("playIntegrity.notConfigured")?.status == row.3)
    }

    @Test("phones without Play: key attestation on and no Play Integrity verdict is ok; one arriving still fails")
    func keyAttestationInsteadOfPlayIntegrity() throws {
        var configuration = F.complete
        configuration.serviceAccountSet = false
        configuration.localKeysSet = false
        configuration.keyAttestationEnabled = true
        let item = try #require(F.evaluate(configuration, []).item("playIntegrity.notConfigured"))
        #expect(item.status == .ok)
        #expect(item.title == "Android phones prove themselves with key attestation")
        let rows = F.week("play-integrity", verified: 0, failing: 5, status: "unavailable", reasons: ["notConfigured"])
        #expect(F.evaluate(configuration, rows).item("playIntegrity.notConfigured")?.status == .fail)
    }

    @Test("no active secret key fails", arguments: [(0, ChecklistStatus.fail), (-1, .fail), (1, .ok), (3, .ok)])
    func secretKeys(_ row: (Int, ChecklistStatus)) {
        var configuration = F.complete
        configuration.activeSecretKeys = row.0
        #expect(F.evaluate(configuration, []).item("keys.noSecretKey")?.status == row.1)
    }

    /// (attack mode, app ids, apps, service account, expected).
    static let attackCases: [(Bool, [String], [AndroidAppSetup], Bool, ChecklistStatus)] = [
        (true, [], [], false, .fail),                                 // nothing at all
        (true, [], [F.app], false, .fail),                            // a package, but nothing decodes verdicts
        (true, [], [], true, .fail),                                  // a service account, but no package
        (true, ["TEAMID1234.com.example.app"], [], false, .ok),       // App Attest
        (true, [], [F.app], true, .ok),                               // Play Integrity
        (false, [], [], false, .ok),                                  // off: nothing to say
    ]

    @Test("attack mode with nothing phones can prove fails", arguments: attackCases)
    func attackMode(_ row: (Bool, [String], [AndroidAppSetup], Bool, ChecklistStatus)) {
        let configuration = ChecklistConfiguration(
            attackMode: row.0, androidApps: row.2, appleAppIds: row.1, serviceAccountSet: row.3, activeSecretKeys: 1)
        let item = F.evaluate(configuration, []).item("attackMode.nothingToProve")
        #expect(item?.status == row.4)
        #expect(item?.fix.isEmpty == (row.4 == .ok))
    }

    @Test("configuration items are always present, in their order, before traffic items of the same status")
    func alwaysPresent() {
        let report = F.evaluate(F.complete, [])
        #expect(report.items.map(\.id) == Self.configurationIDs + F.trafficIDs)
    }

    @Test("the report lists failures, then warnings, then the rest, keeping the order within each")
    func ordering() {
        let configuration = ChecklistConfiguration(
            attackMode: true, androidApps: [AndroidAppSetup(packageName: "com.example.app")], activeSecretKeys: 0)
        var rows = F.week("play-integrity", verified: 0, failing: 100, status: "rejected",
                          reasons: ["certificateMismatch"], observed: [F.digest(F.playDigest, 100)])
        rows += F.rollups("play-integrity", [F.Group(status: "rejected", reasons: ["packageNotRegistered"], count: 40)])
        let report = F.evaluate(configuration, rows)
        let statuses = report.items.map(\.status)
        #expect(statuses == statuses.sorted { ChecklistStatus.allCases.firstIndex(of: $0) ?? 0
            < ChecklistStatus.allCases.firstIndex(of: $1) ?? 0 })
        let canonical = Self.configurationIDs + F.trafficIDs
        for status in ChecklistStatus.allCases {
            let ids = report.items.filter { $0.status == status }.map(\.id)
            #expect(ids == canonical.filter { ids.contains($0) })
        }
        #expect(report.items.filter { $0.status == .fail }.map(\.id) == [
            "android.noDigests", "playIntegrity.notConfigured", "keys.noSecretKey", "attackMode.nothingToProve",
            "android.certificateNotRegistered",
        ])
        #expect(report.items.filter { $0.status == .warn }.map(\.id) == ["android.packageNotRegistered"])
    }
}

/// `android.googleQuota`: today's decodes through Google against the daily quota (warn from 80 %, fail from 100 %).
@Suite("Checklist: Google's daily quota")
struct ChecklistGoogleQuotaTests {
    @Test(arguments: [(0, "ok"), (7_999, "ok"), (8_000, "warn"), (9_999, "warn"), (10_000, "fail"), (12_000, "fail")])
    func todaysCallsAgainstTheQuota(used: Int, status: String) throws {
        let configuration = ChecklistConfiguration(serviceAccountSet: true, activeSecretKeys: 1, googleDecodesToday: used, dailyQuota: 10_000)
        let item = try #require(ChecklistFixtures.evaluate(configuration, []).item("android.googleQuota"))
        #expect(item.status.rawValue == status)
        #expect(item.detail.contains("\(Wording.number(used)) of the daily quota of 10,000"), "\(item.detail)")
        #expect(item.fix.isEmpty == (status == "ok"))
    }

    @Test func withoutAServiceAccountNothingIsSpent() throws {
        let configuration = ChecklistConfiguration(localKeysSet: true, activeSecretKeys: 1, googleDecodesToday: 50, dailyQuota: 10)
        #expect(try #require(ChecklistFixtures.evaluate(configuration, []).item("android.googleQuota")).status == .ok)
    }
}
