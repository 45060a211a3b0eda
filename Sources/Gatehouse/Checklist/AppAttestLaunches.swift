/// The week's App Attest launches per app id (the Traffic tab): how the builds that attested or asserted were signed
/// (their launch validation category) and their bundle versions, counted from the verdicts that carried them (iOS 27
/// and later; forged objects are not counted).
public struct AppAttestLaunches: Sendable, Equatable {
    /// One app id's week.
    public struct App: Sendable, Equatable {
        public var appID: String
        /// Verdicts per category label (`appStore`, `development`, a number, or `none` for objects with a bundle
        /// version alone), most first.
        public var categories: [(label: String, count: Int)]
        /// Verdicts per bundle version (`none` for objects with a category alone), most first.
        public var versions: [(version: String, count: Int)]
        /// Verdicts counted.
        public var total: Int

        public static func == (lhs: App, rhs: App) -> Bool {
            lhs.appID == rhs.appID && lhs.total == rhs.total && lhs.categories.map(\.label) == rhs.categories.map(\.label)
                && lhs.categories.map(\.count) == rhs.categories.map(\.count) && lhs.versions.map(\.version) == rhs.versions.map(\.version)
                && lhs.versions.map(\.count) == rhs.versions.map(\.count)
        }
    }

    /// The app ids, most verdicts first.
    public var apps: [App]

    /// The launches rolled up in the week's `rollups`.
    public init(rollups: [VerdictRollup]) {
        let week = TrafficWeek(rollups: rollups, from: Int64.min, to: Int64.max)
        var categories: [String: [String: Int]] = [:], versions: [String: [String: Int]] = [:], totals: [String: Int] = [:]
        for launch in week.statusObserved(provider: Provider.appAttest, field: AppAttestObservation.launchField).compactMap(Checklist.Launch.init) {
            categories[launch.appID, default: [:]][launch.category ?? "none", default: 0] += launch.count
            versions[launch.appID, default: [:]][launch.version ?? "none", default: 0] += launch.count
            totals[launch.appID, default: 0] += launch.count
        }
        func ranked(_ counts: [String: Int]) -> [(String, Int)] {
            counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { ($0.key, $0.value) }
        }
        apps = totals.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { appID, total in
            App(appID: appID, categories: ranked(categories[appID] ?? [:]).map { (label: $0.0, count: $0.1) },
                versions: ranked(versions[appID] ?? [:]).map { (version: $0.0, count: $0.1) }, total: total)
        }
    }
}
