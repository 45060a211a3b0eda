extension Checklist {
    /// `android.versionCode`: most of the week's Android verdicts came from version codes below the policy's minimum:
    /// raise a minimum only after the update has reached the phones.
    static func versionCodes(_ configuration: ChecklistConfiguration, week: TrafficWeek) -> ChecklistItem {
        let id = "android.versionCode"
        let total = week.verdicts(Provider.playIntegrity)
        let below = week.reasonCount(provider: Provider.playIntegrity) { $0.hasPrefix("versionCode:") }
        var evidence = ChecklistEvidence(provider: Provider.playIntegrity, verdicts: total, failing: below,
                                         share: total == 0 ? 0 : Double(below) / Double(total))
        evidence.registered = configuration.minimumVersionCodes.sorted { $0.key < $1.key }.map { "\($0.key) ≥ \($0.value)" }
        guard !configuration.minimumVersionCodes.isEmpty, below * 2 > total, total > 0 else {
            return ChecklistItem(id: id, status: .ok, title: "Phones run version codes you accept",
                                 detail: configuration.minimumVersionCodes.isEmpty ? "No minimum version code is set."
                                    : "\(Wording.count(below, "verdict")) of \(Wording.number(total)) came from version codes below the minimum.",
                                 fix: "", evidence: evidence)
        }
        let minimum = configuration.minimumVersionCodes.count == 1 ? String(configuration.minimumVersionCodes.values.first ?? 0)
            : "the minimum (" + evidence.registered.joined(separator: ", ") + ")"
        return ChecklistItem(
            id: id, status: .warn, title: "Most phones run a version code below the minimum",
            detail: "\(Wording.number(below)) of \(Wording.number(total)) verdicts came from version codes below \(minimum): their users are refused until they update.",
            fix: "Raise the minimum only after the update has reached them: lower playIntegrity.policy.minimumVersionCode (Apps tab → Play Integrity policy) until most phones run the new version.",
            evidence: evidence)
    }

    /// `android.testingResponses`: a production environment judged testers' overridden verdicts this week
    /// (`isTestingResponse`), refused or, when the policy lets them in, passing unseen.
    static func testingResponses(_ configuration: ChecklistConfiguration, week: TrafficWeek) -> ChecklistItem {
        let id = "android.testingResponses"
        let seen = week.statusObserved(provider: Provider.playIntegrity, field: "testingResponse").reduce(0) { $0 + $1.count }
        let evidence = ChecklistEvidence(provider: Provider.playIntegrity, verdicts: week.verdicts(Provider.playIntegrity), failing: seen)
        guard !configuration.isDevelopment, seen > 0 else {
            return ChecklistItem(id: id, status: .ok, title: "No tester's response in production",
                                 detail: configuration.isDevelopment ? "Testing responses are expected in a development environment."
                                    : "No verdict this week was a tester's overridden response.", fix: "", evidence: evidence)
        }
        return ChecklistItem(
            id: id, status: .warn, title: "Testers' overridden verdicts reach production",
            detail: "\(Wording.count(seen, "verdict")) this week \(seen == 1 ? "was" : "were") a response Play Console overrides for a tester "
                + "(testingDetails.isTestingResponse): whatever it says, it proves nothing about the device.",
            fix: "Point testers' builds at a development environment, and keep playIntegrity.policy.rejectTestingResponses on in production.",
            evidence: evidence)
    }

    /// `android.strongIntegrity`: most of the week's Android verdicts are `strongIntegrityNotMet` under a strong
    /// policy (typically right after it was raised: the chart marks the change).
    static func strongIntegrity(_ configuration: ChecklistConfiguration, week: TrafficWeek) -> ChecklistItem {
        let id = "android.strongIntegrity"
        let total = week.verdicts(Provider.playIntegrity)
        let refused = week.reasonCount(provider: Provider.playIntegrity) { $0 == "strongIntegrityNotMet" }
        let evidence = ChecklistEvidence(provider: Provider.playIntegrity, verdicts: total, failing: refused,
                                         share: total == 0 ? 0 : Double(refused) / Double(total), reasons: refused > 0 ? ["strongIntegrityNotMet"] : [])
        guard refused * 2 > total, total > 0 else {
            return ChecklistItem(id: id, status: .ok, title: "Devices meet the integrity the policy asks",
                                 detail: "\(Wording.count(refused, "verdict")) of \(Wording.number(total)) lacked strong integrity.", fix: "", evidence: evidence)
        }
        return ChecklistItem(
            id: id, status: .warn, title: "Most devices lack the strong integrity the policy asks",
            detail: "\(Wording.percent(refused, of: total)) of \(Wording.number(total)) verdicts were refused strongIntegrityNotMet: "
                + "strong integrity needs a recent security update and hardware-backed keys, which many genuine phones lack. "
                + "The chart marks when the policy changed.",
            fix: "Lower playIntegrity.policy.deviceIntegrity to device unless only recent phones should pass; phones that could qualify are "
                + "offered GET_STRONG_INTEGRITY (the remediation in each answer).",
            evidence: evidence)
    }
}
