extension Checklist {
    /// `appAttest.deviceCheckKey`: fails while Apple refuses the environment's DeviceCheck key (receipts are then
    /// not refreshed and no risk metric comes), naming its key id and team id; ok otherwise.
    static func deviceCheckKey(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        let id = "appAttest.deviceCheckKey"
        guard let key = configuration.deviceCheckKey else {
            return ChecklistItem(id: id, status: .ok, title: "No DeviceCheck key: receipts are not refreshed",
                                 detail: "Registrations keep the receipt Apple put in each attestation. With a DeviceCheck key, Gatehouse trades "
                                    + "each active key's receipt at Apple once a day for its fraud risk metric.",
                                 fix: "", evidence: ChecklistEvidence(provider: Provider.appAttest))
        }
        let named = "key \(key.keyID) of team \(key.teamID)"
        if let refusedAt = configuration.receiptRefresh.refusedAt {
            let status = configuration.receiptRefresh.refusedStatus.map { " (\($0))" } ?? ""
            return ChecklistItem(
                id: id, status: .fail, title: "Apple refuses the DeviceCheck key",
                detail: "Apple refused the \(named)\(status) at \(Wording.time(refusedAt)): receipts are not refreshed and no risk metric "
                    + "comes until the key changes.",
                fix: "Check in your Apple developer account that the key \(key.keyID) exists, has DeviceCheck enabled and belongs to team "
                    + "\(key.teamID) (the team of the app ids registered here), then save it again on the Apps tab.",
                evidence: ChecklistEvidence(provider: Provider.appAttest))
        }
        let pass = configuration.receiptRefresh.lastPassAt.map { " The last pass ran at \(Wording.time($0))." } ?? " No pass has run yet."
        return ChecklistItem(id: id, status: .ok, title: "Receipts are refreshed with the DeviceCheck key",
                             detail: "Active keys' receipts are traded at Apple daily with the \(named).\(pass)", fix: "",
                             evidence: ChecklistEvidence(provider: Provider.appAttest))
    }

    /// `appAttest.riskMetric`: warns when the share of keys whose risk metric is above 5 at least doubled against
    /// the week before (Apple: watch for spikes; investigate, do not block).
    static func riskMetric(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        let id = "appAttest.riskMetric"
        let now = configuration.riskMetricsThisWeek, before = configuration.riskMetricsPreviousWeek
        let evidence = ChecklistEvidence(provider: Provider.appAttest, verdicts: now.total, failing: now.aboveFive, share: now.shareAboveFive)
        guard now.total > 0 else {
            return ChecklistItem(id: id, status: .ok, title: "No risk metric this week",
                                 detail: "Apple's fraud risk metric comes with refreshed receipts (a DeviceCheck key is needed).", fix: "", evidence: evidence)
        }
        let share = Wording.percent(now.aboveFive, of: now.total)
        let spike = now.aboveFive >= 3 && now.shareAboveFive >= 2 * before.shareAboveFive && now.shareAboveFive > 0
        guard spike else {
            return ChecklistItem(id: id, status: .ok, title: "Risk metrics hold steady",
                                 detail: "\(share) of \(Wording.count(now.total, "key")) had a risk metric above 5 this week"
                                    + (before.total > 0 ? ", against \(Wording.percent(before.aboveFive, of: before.total)) the week before." : "."),
                                 fix: "", evidence: evidence)
        }
        return ChecklistItem(
            id: id, status: .warn, title: "More keys than usual have a high risk metric",
            detail: "\(share) of \(Wording.count(now.total, "key")) had a risk metric above 5 this week (Apple's count of keys attested for "
                + "your app on one device over 30 days), against \(Wording.percent(before.aboveFive, of: before.total)) the week before. "
                + "Reinstalls and restores raise it; one device attesting many keys can also be a farm serving many copies of your app.",
            fix: "Investigate before you block (Apple's advice): look at which accounts the high-metric keys serve. The policy's "
                + "riskMetricAbove rejects assertions by keys above a bound when you decide to.",
            evidence: evidence)
    }

    /// `appAttest.validationCategory`: in a production environment, launches whose validation category is outside
    /// the policy's list (or `development` when there is no list): the category, its share and the bundle versions.
    static func validationCategory(_ configuration: ChecklistConfiguration, week: TrafficWeek) -> ChecklistItem {
        let id = "appAttest.validationCategory"
        let launches = week.statusObserved(provider: Provider.appAttest, field: AppAttestObservation.launchField).compactMap(Launch.init)
        // Shares of the verdicts that said how their build was signed (as the Traffic tab counts them).
        let total = launches.reduce(0) { $0 + $1.count }
        var evidence = ChecklistEvidence(provider: Provider.appAttest, verdicts: total, registered: configuration.validationCategories ?? [])
        let outside = launches.filter { launch in
            guard let category = launch.category else { return false }
            return configuration.validationCategories.map { !$0.contains(category) } ?? (category == "development")
        }
        guard !configuration.isDevelopment, !outside.isEmpty else {
            let categories = Set(launches.compactMap(\.category)).sorted()
            return ChecklistItem(id: id, status: .ok, title: "Launches are signed as expected",
                                 detail: categories.isEmpty ? "No App Attest object this week carried a launch validation category (iOS 27 and later)."
                                    : "Launch validation categories this week: \(Wording.list(categories, conjunction: "and")).",
                                 fix: "", evidence: evidence)
        }
        var byCategory: [String: (count: Int, versions: Set<String>)] = [:]
        for launch in outside {
            byCategory[launch.category ?? "", default: (0, [])].count += launch.count
            if let version = launch.version { byCategory[launch.category ?? "", default: (0, [])].versions.insert(version) }
        }
        let ranked = byCategory.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
        let failing = ranked.reduce(0) { $0 + $1.value.count }
        evidence.failing = failing
        evidence.share = total == 0 ? 0 : Double(failing) / Double(total)
        evidence.observed = ranked.prefix(5).map { ObservedValue(field: "validationCategory", value: $0.key, count: $0.value.count) }
        let described = ranked.prefix(3).map { category, seen in
            let versions = seen.versions.sorted()
            return "\(category) (\(Wording.percent(seen.count, of: total)) of \(Wording.count(total, "launch", "launches")) that said how they were signed; "
                + (versions.isEmpty ? "no bundle version" : "bundle \(versions.count == 1 ? "version" : "versions") \(Wording.list(Array(versions.prefix(5)), conjunction: "and"))") + ")"
        }
        let accepted = configuration.validationCategories.map { "The policy accepts \(Wording.list($0, conjunction: "and"))." }
            ?? "The policy accepts any category."
        return ChecklistItem(
            id: id, status: .warn, title: "Builds launch with an unexpected signature in production",
            detail: "This week's App Attest objects show launches signed as \(Wording.list(described, conjunction: "and")). \(accepted) "
                + "A development or re-signed build talking to production is a test build shipped by mistake, or someone else's copy of your app.",
            fix: configuration.validationCategories == nil
                ? "Set validationCategories to the ways you ship (appStore, testFlight) so other launches are rejected, and point development builds at a development environment."
                : "If these builds are yours, add their category to validationCategories; otherwise they are rejected, as they should be.",
            evidence: evidence)
    }

    /// `appAttest.receipts`: warns when a tenth or more of this week's registrations brought a receipt that was not
    /// accepted (many failures mean a format Gatehouse does not read yet), with the reasons.
    static func receipts(_ week: TrafficWeek) -> ChecklistItem {
        let id = "appAttest.receipts"
        let seen = week.statusObserved(provider: Provider.appAttest, field: "receipt")
        let invalid = seen.first { $0.value == "invalid" }?.count ?? 0
        let total = seen.reduce(0) { $0 + $1.count }
        let reasons = week.statusObserved(provider: Provider.appAttest, field: "receiptReasons")
        let evidence = ChecklistEvidence(provider: Provider.appAttest, verdicts: total, failing: invalid,
                                         share: total == 0 ? 0 : Double(invalid) / Double(total), observed: Array(reasons.prefix(5)))
        guard invalid > 0, invalid * 10 >= total else {
            return ChecklistItem(id: id, status: .ok, title: "Attestation receipts check out",
                                 detail: total == 0 ? "No registration this week." : "\(Wording.count(total - invalid, "receipt")) of \(Wording.count(total, "registration")) checked out.",
                                 fix: "", evidence: evidence)
        }
        return ChecklistItem(
            id: id, status: .warn, title: "Attestation receipts fail their check",
            detail: "\(Wording.percent(invalid, of: total)) of \(Wording.count(total, "registration")) brought a receipt that did not check out"
                + (reasons.isEmpty ? "." : " (\(Wording.list(reasons.prefix(3).map { "\($0.value): \($0.count)" }, conjunction: "and"))).")
                + " The registrations themselves were judged as usual; these keys get no refreshed receipt and no risk metric.",
            fix: "If the server runs with --app-attest-receipt-roots, check that it names Apple Root CA - G3; otherwise Apple may have changed "
                + "the receipt's format: update Gatehouse.",
            evidence: evidence)
    }

    /// One rolled-up launch: app id, category and bundle version, and how many verdicts showed it.
    struct Launch {
        var appID: String
        var category: String?
        var version: String?
        var count: Int

        init?(_ observed: ObservedValue) {
            let parts = observed.value.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else { return nil }
            appID = parts[0]
            category = parts[1] == "none" ? nil : parts[1]
            version = parts[2] == "none" ? nil : parts[2]
            count = observed.count
        }
    }
}
