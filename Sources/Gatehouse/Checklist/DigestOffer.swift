/// The checklist's one-click fix for a failing `android.certificateNotRegistered`: the digest phones report most,
/// and the registered Android app it belongs to — the package phones ran most with the mismatch, or the only app.
public struct DigestOffer: Sendable, Equatable {
    /// The registered app to add the digest to.
    public var packageName: String
    /// The certificate digest (32 bytes).
    public var digest: [UInt8]

    /// The offer for `item`, or nil when the item is not that check, is ok, names no digest, or the digest is
    /// registered for the app already.
    public init?(_ item: ChecklistItem, environment: Environment, rollups: [VerdictRollup]) {
        guard item.id == SetupItem.certificateNotRegistered.rawValue, item.status != .ok,
              let top = item.evidence.observed.first, let bytes = CertificateDigest.parse(top.value) else { return nil }
        var packages: [String: Int] = [:]
        for row in rollups where row.provider == Provider.playIntegrity && row.reason == "certificateMismatch" {
            for value in row.observed where value.field == "packageName" { packages[value.value, default: 0] += value.count }
        }
        let topPackage = packages.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        let apps = environment.androidApps
        guard let app = apps.first(where: { $0.packageName == topPackage }) ?? (apps.count == 1 ? apps.first : nil),
              !app.certificateDigests.contains(bytes) else { return nil }
        packageName = app.packageName
        digest = bytes
    }
}
