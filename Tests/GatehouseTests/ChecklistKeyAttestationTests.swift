import Gatehouse
import Testing

/// The checklist's key attestation items (docs/device-api.md "Android Key Attestation", "Offline, simulated,
/// observed"), pure: most phones below the minimum patch level, a tenth of registrations with software keys, the app's
/// signing certificate not registered.
@Suite("Checklist: key attestation")
struct ChecklistKeyAttestationTests {
    static let now: Int64 = 1_764_900_000
    static let hour = now - 3_600
    static let provider = "key-attestation"

    static func item(_ id: String, _ configuration: ChecklistConfiguration, _ rollups: [VerdictRollup]) throws -> ChecklistItem {
        try #require(Checklist.evaluate(configuration: configuration, rollups: rollups, now: now).items.first { $0.id == id })
    }

    /// `verified` registrations at 2026-11 and `refused` of `status` for `reason` (registrations unless `uses`).
    static func week(verified: Int, refused: Int, status: String = "rejected", reason: String, uses: Int = 0,
                     refusedObserved: [ObservedValue] = []) -> [VerdictRollup] {
        let stage = "stage", registration = "registration"
        return [VerdictRollup(hour: hour, provider: provider, status: "verified", count: verified + uses,
                              observed: [ObservedValue(field: stage, value: registration, count: verified),
                                         ObservedValue(field: "osPatchLevel", value: "2026-11", count: verified + uses)]),
                VerdictRollup(hour: hour, provider: provider, status: status, count: refused,
                              observed: [ObservedValue(field: stage, value: registration, count: refused)]
                                + (status == "forged" ? [] : [ObservedValue(field: "osPatchLevel", value: "2026-01", count: refused)])),
                VerdictRollup(hour: hour, provider: provider, status: status, reason: reason, count: refused, observed: refusedObserved)]
    }

    @Test func mostPhonesBelowTheMinimumPatchLevelWarn() throws {
        var configuration = ChecklistConfiguration()
        configuration.keyAttestationMinimumPatchLevel = "2026-06"
        let most = try Self.item("keyAttestation.patchLevel", configuration, Self.week(verified: 30, refused: 70, reason: "patchLevel:2026-01"))
        #expect(most.status == .warn)
        #expect(most.detail.hasPrefix("70 of 100 key attestation verdicts came from phones patched before 2026-06"), "\(most.detail)")
        #expect(most.detail.contains("The patch level seen most is 2026-01 (70 verdicts)."), "\(most.detail)")
        #expect(most.fix.contains("Lower keyAttestation.minimumPatchLevel"))
        #expect(most.evidence.registered == ["≥ 2026-06"])
        #expect(try Self.item("keyAttestation.patchLevel", configuration, Self.week(verified: 50, refused: 50, reason: "patchLevel:2026-01")).status == .ok,
                "half is not most")
        #expect(try Self.item("keyAttestation.patchLevel", ChecklistConfiguration(), Self.week(verified: 1, refused: 99, reason: "patchLevel:2026-01")).status == .ok,
                "no minimum: nothing to lower")
    }

    @Test func aTenthOfRegistrationsWithSoftwareKeysWarns() throws {
        let configuration = ChecklistConfiguration()
        let farm = try Self.item("keyAttestation.softwareKeys", configuration, Self.week(verified: 180, refused: 20, status: "forged", reason: "softwareKey"))
        #expect(farm.status == .warn)
        #expect(farm.evidence.verdicts == 200 && farm.evidence.failing == 20)
        #expect(farm.detail.hasPrefix("10% of this week's key registrations (20 of 200) were refused softwareKey"), "\(farm.detail)")
        // Uses of stored keys are not registrations: 20 of 200 registrations still warn among 5,000 assessments.
        #expect(try Self.item("keyAttestation.softwareKeys", configuration,
                              Self.week(verified: 180, refused: 20, status: "forged", reason: "softwareKey", uses: 5_000)).status == .warn)
        #expect(try Self.item("keyAttestation.softwareKeys", configuration, Self.week(verified: 181, refused: 20, status: "forged", reason: "softwareKey")).status == .ok,
                "under a tenth")
        #expect(try Self.item("keyAttestation.softwareKeys", configuration, Self.week(verified: 5, refused: 19, status: "forged", reason: "softwareKey")).status == .ok,
                "a developer's few emulators")
    }

    @Test func theAppsCertificateInKeyAttestationChainsIsItsOwnItem() throws {
        let digest = "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99"
        var configuration = ChecklistConfiguration()
        configuration.androidApps = [AndroidAppSetup(packageName: "com.example.app", certificateDigests: ["11:22"])]
        let observed = [ObservedValue(field: "certificateDigest", value: digest, count: 40), ObservedValue(field: "packageName", value: "com.example.app", count: 40)]
        let rollups = Self.week(verified: 10, refused: 40, reason: "certificateMismatch", refusedObserved: observed)
        let item = try Self.item("keyAttestation.certificateNotRegistered", configuration, rollups)
        #expect(item.status == .fail)
        #expect(item.detail.hasPrefix("80% of Key Attestation verdicts this week (40 of 50) failed with certificateMismatch."), "\(item.detail)")
        #expect(item.fix.contains("Add \(digest) to the certificate digests of com.example.app"), "\(item.fix)")
        #expect(try Self.item("android.certificateNotRegistered", configuration, rollups).status == .ok, "Play Integrity's item counts Play Integrity's verdicts")
        configuration.androidApps[0].certificateDigests.append(digest)
        let fixed = try Self.item("keyAttestation.certificateNotRegistered", configuration, rollups)
        #expect(fixed.status == .ok && fixed.fixed)
        #expect(fixed.title == "Fixed: the certificate phones report is now registered")
    }
}
