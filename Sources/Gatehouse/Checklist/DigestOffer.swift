/// The checklist's one-click fix for a failing `android.certificateNotRegistered`: the digest phones report most in
/// verdicts where Google recognized the binary (`PLAY_RECOGNIZED`: the upload-key mistake always is, since Play
/// re-signs what it distributes), and the registered Android app it belongs to — the package phones ran most with the
/// mismatch, or the only app. A digest seen only beside `UNRECOGNIZED_VERSION` is a copy re-signed by someone else:
/// never offered, since registering it would let that copy pass.
public struct DigestOffer: Sendable, Equatable {
    /// The registered app to add the digest to.
    public var packageName: String
    /// The certificate digest (32 bytes).
    public var digest: [UInt8]

    /// The offer for `item`, or nil when the item is not that check, is ok, no digest was seen from a binary Google
    /// recognized, or the digest is registered for the app already.
    public init?(_ item: ChecklistItem, environment: Environment, rollups: [VerdictRollup]) {
        guard Self.applies(item), let top = Self.recognizedDigests(rollups).first, let bytes = CertificateDigest.parse(top.value) else { return nil }
        var packages: [String: Int] = [:]
        for row in Self.mismatches(rollups) {
            for value in row.observed where value.field == "packageName" { packages[value.value, default: 0] += value.count }
        }
        let topPackage = packages.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        let apps = environment.androidApps
        guard let app = apps.first(where: { $0.packageName == topPackage }) ?? (apps.count == 1 ? apps.first : nil),
              !app.certificateDigests.contains(bytes) else { return nil }
        packageName = app.packageName
        digest = bytes
    }

    /// Whether `item` fails for unregistered certificates that were never seen in a binary Google recognized: the
    /// phones run copies of the app re-signed by someone else, and what they report must not be registered.
    public static func looksResigned(_ item: ChecklistItem, rollups: [VerdictRollup]) -> Bool {
        applies(item) && !item.evidence.observed.isEmpty && recognizedDigests(rollups).isEmpty
    }

    /// A failing or warning `android.certificateNotRegistered`.
    static func applies(_ item: ChecklistItem) -> Bool {
        item.id == SetupItem.certificateNotRegistered.rawValue && item.status != .ok
    }

    /// The Play Integrity rollups of `certificateMismatch`.
    static func mismatches(_ rollups: [VerdictRollup]) -> [VerdictRollup] {
        rollups.filter { $0.provider == Provider.playIntegrity && $0.reason == "certificateMismatch" }
    }

    /// The digests seen with `certificateMismatch` in recognized binaries, most seen first.
    static func recognizedDigests(_ rollups: [VerdictRollup]) -> [(value: String, count: Int)] {
        var counts: [String: Int] = [:]
        for row in mismatches(rollups) {
            for value in row.observed where value.field == ObservedValue.recognizedCertificateDigest {
                counts[value.value, default: 0] += value.count
            }
        }
        return counts.map { (value: $0.key, count: $0.value) }.sorted { ($0.count, $1.value) > ($1.count, $0.value) }
    }
}
