import Gatehouse
import Testing

/// The checklist's Play Integrity policy items (docs/device-api.md "Checklist" of "Play Integrity in depth"), pure: most
/// verdicts below the minimum version code, testers' responses in production, strongIntegrityNotMet dominating.
@Suite("Checklist: Play Integrity policy")
struct ChecklistPlayIntegrityPolicyTests {
    static let now: Int64 = 1_764_900_000

    static func item(_ id: String, _ configuration: ChecklistConfiguration, _ rollups: [VerdictRollup]) throws -> ChecklistItem {
        try #require(Checklist.evaluate(configuration: configuration, rollups: rollups, now: now).items.first { $0.id == id })
    }

    static func week(verified: Int, rejected: Int, reason: String, observed: [ObservedValue] = []) -> [VerdictRollup] {
        [VerdictRollup(hour: now - 3600, provider: "play-integrity", status: "verified", count: verified, observed: observed),
         VerdictRollup(hour: now - 3600, provider: "play-integrity", status: "rejected", count: rejected),
         VerdictRollup(hour: now - 3600, provider: "play-integrity", status: "rejected", reason: reason, count: rejected)]
    }

    @Test func mostVerdictsBelowTheMinimumVersionCodeWarn() throws {
        var configuration = ChecklistConfiguration()
        configuration.minimumVersionCodes = ["com.example.app": 4200]
        let most = try Self.item("android.versionCode", configuration, Self.week(verified: 700, rejected: 3400, reason: "versionCode:4100"))
        #expect(most.status == .warn)
        #expect(most.detail == "3,400 of 4,100 verdicts came from version codes below 4200: their users are refused until they update.")
        #expect(most.fix.hasPrefix("Raise the minimum only after the update has reached them"))
        #expect(try Self.item("android.versionCode", configuration, Self.week(verified: 3000, rejected: 1000, reason: "versionCode:4100")).status == .ok)
        #expect(try Self.item("android.versionCode", ChecklistConfiguration(), Self.week(verified: 1, rejected: 9, reason: "versionCode:1")).status == .ok,
                "no minimum: nothing to lower")
    }

    @Test func testersResponsesInProductionWarn() throws {
        let rollups = Self.week(verified: 10, rejected: 2, reason: "testingResponse",
                                observed: [ObservedValue(field: "testingResponse", value: "true", count: 3)])
        let production = try Self.item("android.testingResponses", ChecklistConfiguration(), rollups)
        #expect(production.status == .warn)
        #expect(production.detail.hasPrefix("3 verdicts this week were a response Play Console overrides for a tester"), "\(production.detail)")
        #expect(try Self.item("android.testingResponses", ChecklistConfiguration(kind: "development"), rollups).status == .ok)
    }

    @Test func strongIntegrityRefusingMostWarns() throws {
        let raised = try Self.item("android.strongIntegrity", ChecklistConfiguration(), Self.week(verified: 30, rejected: 70, reason: "strongIntegrityNotMet"))
        #expect(raised.status == .warn)
        #expect(raised.detail.hasPrefix("70% of 100 verdicts were refused strongIntegrityNotMet"), "\(raised.detail)")
        #expect(try Self.item("android.strongIntegrity", ChecklistConfiguration(), Self.week(verified: 70, rejected: 30, reason: "strongIntegrityNotMet")).status == .ok)
    }
}
