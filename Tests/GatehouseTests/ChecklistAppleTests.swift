import Testing
@testable import Gatehouse

@Suite("Checklist: App Attest setup faults in detail")
struct ChecklistAppleTests {
    @Test("an app id whose prefix differs from the registered one is explained")
    func prefixDiffers() throws {
        let rows = F.week("app-attest", verified: 0, failing: 40, status: "rejected", reasons: ["appIdNotRegistered"],
                          observed: [F.appId("A1B2C3D4E5.com.example.app", 40)])
        let item = try #require(F.evaluate(F.complete, rows).item("apple.appIdNotRegistered"))
        #expect(item.status == .fail)
        #expect(item.detail.contains("Phones attest A1B2C3D4E5.com.example.app (40 verdicts); registered: "
            + "TEAMID1234.com.example.app."))
        #expect(item.detail.contains("prefix differs: Apple signed A1B2C3D4E5"))
        #expect(item.detail.contains("App ID prefix that is not the team id"))
        #expect(item.fix == "Register A1B2C3D4E5.com.example.app under Apple app ids.")
        #expect(item.evidence.registered == ["TEAMID1234.com.example.app"])
    }

    @Test("an app id of another bundle says no registered id has it")
    func otherBundle() throws {
        let rows = F.week("app-attest", verified: 0, failing: 40, status: "rejected", reasons: ["appIdNotRegistered"],
                          observed: [F.appId("TEAMID1234.com.example.clip", 40)])
        let item = try #require(F.evaluate(F.complete, rows).item("apple.appIdNotRegistered"))
        #expect(item.detail.contains("No registered app id has the bundle id com.example.clip."))
        #expect(!item.detail.contains("prefix differs"))
        // Anyone can attest an app of theirs with the public key: the fix does not tell the admin to register it.
        #expect(!item.fix.hasPrefix("Register TEAMID1234.com.example.clip"))
        #expect(item.fix.contains("another developer's app"))
    }

    @Test("development keys: a fault in production, expected in development",
          arguments: [("production", ChecklistStatus.fail), ("development", .ok), ("staging", .fail)])
    func developmentKey(_ environment: (String, ChecklistStatus)) throws {
        var configuration = F.complete
        configuration.kind = environment.0
        let rows = F.week("app-attest", verified: 0, failing: 100, status: "rejected", reasons: ["developmentKey"],
                          observed: [F.appId("TEAMID1234.com.example.app", 100)])
        let item = try #require(F.evaluate(configuration, rows).item("apple.developmentKey"))
        #expect(item.status == environment.1)
        #expect(item.evidence.failing == 100)
        if environment.1 == .fail {
            #expect(item.fix.contains("com.apple.developer.devicecheck.appattest-environment"))
            #expect(item.fix.contains("TestFlight or the App Store"))
        } else {
            #expect(item.fix.isEmpty)
            #expect(item.detail.contains("100 App Attest verdicts this week"))
        }
    }
}
