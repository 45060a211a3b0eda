/// Traffic items whose cause is fixed in the configuration since the verdicts came.
///
/// The week's rollups keep the failures of the whole week, but a fault the configuration no longer has cannot
/// have produced the ones the engine judged after the change: the engine checks the same configuration the
/// checklist reads. So when every value the failing verdicts observed is now registered (or the app is now
/// marked, or decoding now set), the item is `ok` at once — with the next verdicts, not a week later — and its
/// detail says it was fixed and that the earlier verdicts are from before the change.
extension Checklist {
    /// The closing clause of a fixed item: "the 1,204 earlier verdicts are from before the change."
    static func earlier(_ failing: Int) -> String {
        failing == 1
            ? "the 1 earlier verdict is from before the change."
            : "the \(Wording.number(failing)) earlier verdicts are from before the change."
    }

    /// `android.certificateNotRegistered` fixed: every certificate digest the failing verdicts observed is now
    /// registered for the package they ran (for any observed package that is registered; for the only app when
    /// they observed none); `failing` is the item's count. Returns the detail, or `nil` when the item is not fixed.
    static func certificatesFixed(
        _ item: SetupItem, _ configuration: ChecklistConfiguration, week: TrafficWeek, digests: [ObservedValue], failing: Int
    ) -> String? {
        guard !digests.isEmpty else { return nil }
        let packages = week.observed(item, field: "packageName").map(\.value)
        let apps = configuration.androidApps
        let candidates = packages.isEmpty
            ? (apps.count == 1 ? apps : [])
            : apps.filter { packages.contains($0.packageName) }
        guard !candidates.isEmpty else { return nil }
        var owners: [String] = []
        for digest in digests {
            guard let owner = candidates.first(where: { $0.certificateDigests.contains(digest.value) }) else {
                return nil
            }
            if !owners.contains(owner.packageName) { owners.append(owner.packageName) }
        }
        let values = Wording.list(digests.map(\.value), conjunction: "and")
        let verb = digests.count == 1 ? "which is" : "which are"
        return "Fixed: phones report \(values), \(verb) now registered for "
            + "\(Wording.list(owners, conjunction: "and")); " + earlier(failing)
    }
}
