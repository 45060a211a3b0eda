extension Checklist {
    /// `android.notFromPlay`: genuine builds installed from outside Google Play.
    ///
    /// Only verdicts signed with a certificate registered for an app not already marked `outsidePlay` count:
    /// per row, the observed `certificateDigest` values that are such a certificate (at most the row's count).
    /// A row that observed no digest at all is counted whole — and the detail says how many were — as long as
    /// such an app exists. A copy signed by anyone else is `certificateNotRegistered`'s business.
    static func notFromPlay(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem {
        let apps = configuration.androidApps.filter { !$0.outsidePlay && !$0.certificateDigests.isEmpty }
        let registered = unique(apps.flatMap(\.certificateDigests))
        let (counted, undigested) = notFromPlayCounts(week: week, eligible: Set(registered))
        let figures = TrafficFigures(item: .notFromPlay, week: week, failing: counted, thresholds: thresholds)
        let observed = week.observed(.notFromPlay).filter { registered.contains($0.value) }
        if figures.status == .ok, let fixed = notFromPlayFixed(configuration, week: week, thresholds: thresholds) {
            return fixed
        }
        let qualifier = ", signed with a registered certificate"
        let undigestedNote = undigested == 0 ? ""
            : " \(Wording.count(undigested, "of these verdicts", "of these verdicts")) reported no certificate "
                + "digest and \(undigested == 1 ? "is" : "are") counted as if signed with a registered one."
        guard figures.status != .ok else {
            return figures.item(title: "Installs signed with your certificates come from Google Play",
                                detail: figures.opener(qualifier: qualifier) + undigestedNote, fix: "",
                                observed: observed, registered: registered)
        }
        let owner = observed.first.flatMap { top in apps.first { $0.certificateDigests.contains(top.value) } }
            ?? (apps.count == 1 ? apps.first : nil)
        let name = owner?.packageName ?? Wording.list(apps.map(\.packageName))
        var detail = figures.opener(qualifier: qualifier)
        if let top = observed.first {
            detail += " Phones report \(top.value) (\(Wording.count(top.count, "verdict"))), registered for \(name)."
        }
        detail += " Google does not recognize (UNRECOGNIZED_VERSION) or license (unlicensed) a build installed "
            + "from outside Play — Galaxy Store, an enterprise channel, a test build — so every genuine install "
            + "from there reads as rejected."
        detail += undigestedNote
        return figures.item(
            title: "Genuine builds come from outside Google Play, and \(name) is not marked so",
            detail: detail,
            fix: "If \(name) ships outside Google Play, mark it \"outsidePlay\": true under Android apps: builds "
                + "signed with its registered certificates are then not held to Play's recognition and licensing. "
                + "If it ships only through Play, find out where these installs come from.",
            observed: observed, registered: registered)
    }

    /// The verdicts `notFromPlay` counts with these certificates eligible, and how many of them observed no digest.
    static func notFromPlayCounts(week: TrafficWeek, eligible: Set<String>) -> (counted: Int, undigested: Int) {
        let digestsOf = { (row: VerdictRollup) in row.observed.filter { $0.field == "certificateDigest" } }
        let counted = week.failing(.notFromPlay) { row in
            let digests = digestsOf(row)
            if digests.isEmpty { return eligible.isEmpty ? 0 : row.count }
            let matched = digests.filter { eligible.contains($0.value) }.reduce(0) { $0.addingCount($1.count) }
            return min(matched, max(0, row.count))
        }
        let undigested = eligible.isEmpty ? 0 : week.failing(.notFromPlay) { digestsOf($0).isEmpty ? $0.count : 0 }
        return (counted, undigested)
    }

    /// `notFromPlay` fixed: the week's verdicts would raise the item if the apps now marked `outsidePlay` were
    /// not, so they were marked after those verdicts came — the item is ok and says so. `nil` otherwise.
    static func notFromPlayFixed(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem? {
        let marked = configuration.androidApps.filter { $0.outsidePlay && !$0.certificateDigests.isEmpty }
        guard !marked.isEmpty else { return nil }
        let all = unique(configuration.androidApps.flatMap(\.certificateDigests))
        let (counted, _) = notFromPlayCounts(week: week, eligible: Set(all))
        let figures = TrafficFigures(item: .notFromPlay, week: week, failing: counted, thresholds: thresholds)
        guard figures.status != .ok else { return nil }
        let observed = week.observed(.notFromPlay).filter { all.contains($0.value) }
        let names = Wording.list(marked.map(\.packageName), conjunction: "and")
        let signed = observed.isEmpty ? "" : " signed with \(Wording.list(observed.map(\.value), conjunction: "and"))"
        return figures.item(
            status: .ok, title: "Fixed: \(names) \(marked.count == 1 ? "is" : "are") now marked as shipping outside Google Play",
            detail: "Fixed: builds\(signed) come from outside Google Play, and \(names) \(marked.count == 1 ? "is" : "are") "
                + "now marked \"outsidePlay\"; " + earlier(figures.failing),
            fix: "", observed: observed, registered: all)
    }

    /// `playIntegrity.serviceAccountRejected`.
    static func serviceAccountRejected(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem {
        let figures = figures(.serviceAccountRejected, week: week, thresholds: thresholds)
        let packages = week.observed(.serviceAccountRejected)
        guard figures.status != .ok else {
            return figures.item(title: "Google accepts the service account", detail: figures.opener(), fix: "",
                                observed: packages)
        }
        return figures.item(
            title: "Google refuses the Play Integrity service account",
            detail: figures.opener()
                + " Google would not decode these verdicts with the service account set here: it belongs to a "
                + "Google Cloud project other than the one linked in Play Console, no project is linked, or the "
                + "Play Integrity API is not enabled in it."
                + (packages.isEmpty ? "" : " Phones reported \(Wording.observed(Array(packages.prefix(3)))).")
                + (configuration.serviceAccountSet ? "" : " No service account is set now: if it was removed this "
                    + "week, these verdicts are from before."),
            fix: "In Play Console → App integrity → Play Integrity API, check which Google Cloud project is linked "
                + "(link one if none is) and that the Play Integrity API is enabled in it; then create the service "
                + "account in that project and paste its JSON key into this environment's Play Integrity settings.",
            observed: packages)
    }

    /// `playIntegrity.notConfiguredTraffic`.
    static func notConfiguredTraffic(
        _ configuration: ChecklistConfiguration, week: TrafficWeek, thresholds: ChecklistThresholds
    ) -> ChecklistItem {
        let figures = figures(.notConfiguredTraffic, week: week, thresholds: thresholds)
        let packages = week.observed(.notConfiguredTraffic)
        if figures.status != .ok, configuration.serviceAccountSet {
            return figures.item(
                status: .ok, title: "Fixed: Play Integrity verdicts can now be decoded",
                detail: "Fixed: a service account is now set to decode Play Integrity verdicts; "
                    + earlier(figures.failing),
                fix: "", observed: packages)
        }
        guard figures.status != .ok else {
            return figures.item(title: "Every Play Integrity verdict can be decoded", detail: figures.opener(),
                                fix: "", observed: packages)
        }
        var detail = figures.opener()
        let fix: String
        if configuration.localKeysSet {
            detail += " Only response keys are set, and they decode classic requests only: these phones make "
                + "standard requests, which only Google decodes."
            fix = "Add a service account: create it in the Google Cloud project linked in Play Console and paste "
                + "its JSON key into this environment's Play Integrity settings."
        } else {
            detail += " Nothing is set to decode a Play Integrity verdict, so each reports unavailable / "
                + "notConfigured and moves nothing, and attack mode cannot ask Android phones for proof."
            fix = "Set a service account (create it in the Google Cloud project linked in Play Console and paste "
                + "its JSON key), or the response keys (Play Console → App integrity → Response encryption → "
                + "Manage and download keys) if the app makes classic requests."
        }
        if !packages.isEmpty { detail += " Phones reported \(Wording.observed(Array(packages.prefix(3))))." }
        return figures.item(title: "Play Integrity verdicts arrive that nothing here can decode", detail: detail,
                            fix: fix, observed: packages)
    }
}
