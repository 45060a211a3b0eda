import Gatehouse
import Testing

/// The checklist's App Attest in depth items (docs/device-api.md "App Attest in depth"), pure: the risk metric's spike
/// warning, receipts that fail their check, a refused DeviceCheck key, and launches outside a production policy.
@Suite("Checklist: App Attest in depth")
struct ChecklistAppAttestTests {
    static let now: Int64 = 1_764_900_000

    static func item(_ id: String, _ configuration: ChecklistConfiguration, rollups: [VerdictRollup] = []) throws -> ChecklistItem {
        try #require(Checklist.evaluate(configuration: configuration, rollups: rollups, now: now).items.first { $0.id == id })
    }

    static func metrics(_ thisWeek: [Int], _ previousWeek: [Int]) -> ChecklistConfiguration {
        var configuration = ChecklistConfiguration()
        configuration.riskMetricsThisWeek = RiskMetricDistribution(thisWeek)
        configuration.riskMetricsPreviousWeek = RiskMetricDistribution(previousWeek)
        return configuration
    }

    @Test func theRiskMetricWarnsWhenTheShareAboveFiveDoubles() throws {
        #expect(RiskMetricDistribution([1, 2, 3, 5, 6, 10, 11, 40, 0]).counts == [2, 1, 2, 2, 2])
        let steady = try Self.item("appAttest.riskMetric", Self.metrics([1, 1, 1, 7, 8, 9, 12], [1, 1, 6]))
        #expect(steady.status == .ok, "57% against 33%: not doubled")
        let spike = try Self.item("appAttest.riskMetric", Self.metrics([1, 1, 1, 1, 7, 8, 9], Array(repeating: 1, count: 9) + [6]))
        #expect(spike.status == .warn)
        #expect(spike.detail.hasPrefix("43% of 7 keys had a risk metric above 5 this week"), "\(spike.detail)")
        #expect(spike.detail.contains("against 10% the week before"))
        #expect(spike.fix.contains("Investigate before you block"))
        // From nothing above 5 to three keys: a spike; to two: too few to call one.
        #expect(try Self.item("appAttest.riskMetric", Self.metrics([1, 7, 8, 9], [1, 1])).status == .warn)
        #expect(try Self.item("appAttest.riskMetric", Self.metrics([1, 7, 8], [1, 1])).status == .ok)
        #expect(try Self.item("appAttest.riskMetric", Self.metrics([], [])).title == "No risk metric this week")
    }

    static func registrations(valid: Int, invalid: Int) -> [VerdictRollup] {
        [VerdictRollup(hour: now - 3600, provider: "app-attest", status: "verified", count: valid + invalid, observed: [
            ObservedValue(field: "receipt", value: "valid", count: valid), ObservedValue(field: "receipt", value: "invalid", count: invalid),
            ObservedValue(field: "receiptReasons", value: "certificateChainInvalid", count: invalid),
        ])]
    }

    @Test func receiptsThatFailTheirCheckWarnFromATenth() throws {
        let failing = try Self.item("appAttest.receipts", ChecklistConfiguration(), rollups: Self.registrations(valid: 7, invalid: 3))
        #expect(failing.status == .warn)
        #expect(failing.detail.hasPrefix("30% of 10 registrations brought a receipt that did not check out (certificateChainInvalid: 3)."), "\(failing.detail)")
        #expect(try Self.item("appAttest.receipts", ChecklistConfiguration(), rollups: Self.registrations(valid: 19, invalid: 1)).status == .ok)
    }

    @Test func aRefusedDeviceCheckKeyFailsNamingIt() throws {
        var configuration = ChecklistConfiguration()
        #expect(try Self.item("appAttest.deviceCheckKey", configuration).status == .ok)
        configuration.deviceCheckKey = DeviceCheckKeyID(keyID: "ABC123DEFG", teamID: "ABCDE12345")
        configuration.receiptRefresh = AppleReceiptRefreshState(lastPassAt: Self.now - 60)
        #expect(try Self.item("appAttest.deviceCheckKey", configuration).status == .ok)
        configuration.receiptRefresh = AppleReceiptRefreshState(lastPassAt: Self.now - 60, refusedAt: Self.now - 60, refusedStatus: 403)
        let refused = try Self.item("appAttest.deviceCheckKey", configuration)
        #expect(refused.status == .fail)
        #expect(refused.detail.hasPrefix("Apple refused the key ABC123DEFG of team ABCDE12345 (403) at "), "\(refused.detail)")
    }

    static func launches(_ values: [(String, Int)]) -> [VerdictRollup] {
        [VerdictRollup(hour: now - 3600, provider: "app-attest", status: "verified", count: values.reduce(0) { $0 + $1.1 },
                       observed: values.map { ObservedValue(field: "launch", value: $0.0, count: $0.1) })]
    }

    @Test func launchesOutsideTheListWarnInProductionOnly() throws {
        let rollups = Self.launches([("A.app\tappStore\t4.2", 6), ("A.app\tdeveloperID\t9.9", 2), ("A.app\tnone\t4.2", 2)])
        var configuration = ChecklistConfiguration(appleAppIds: ["A.app"])
        #expect(try Self.item("appAttest.validationCategory", configuration, rollups: rollups).status == .ok, "no list: only development is flagged")
        configuration.validationCategories = ["appStore", "testFlight"]
        let outside = try Self.item("appAttest.validationCategory", configuration, rollups: rollups)
        #expect(outside.status == .warn)
        #expect(outside.detail.contains("developerID (20% of 10 launches that said how they were signed; bundle version 9.9)"), "\(outside.detail)")
        configuration.kind = "development"
        #expect(try Self.item("appAttest.validationCategory", configuration, rollups: rollups).status == .ok)
    }
}
