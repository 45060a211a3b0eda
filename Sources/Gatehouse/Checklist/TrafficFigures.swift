/// The figures of one traffic item over the window, and the sentences every traffic item opens with.
struct TrafficFigures {
    /// The item.
    let item: SetupItem
    /// All verdicts of the item's provider, every status.
    let verdicts: Int
    /// Verdicts failing for the item's reasons (never more than `verdicts`).
    let failing: Int
    /// The item's reasons that were seen.
    let reasons: [String]
    /// The limits the status was decided by.
    let thresholds: ChecklistThresholds
    /// How the item stands by the thresholds alone.
    let status: ChecklistStatus

    /// Figures for `item`, counting `failing` of the week's verdicts of its provider.
    init(item: SetupItem, week: TrafficWeek, failing: Int, thresholds: ChecklistThresholds) {
        self.item = item
        self.verdicts = week.verdicts(item.provider)
        self.failing = min(failing, max(verdicts, 0))
        self.reasons = week.seenReasons(item)
        self.thresholds = thresholds
        self.status = thresholds.status(failing: self.failing, of: verdicts)
    }

    /// `failing / verdicts`, 0 without verdicts.
    var share: Double { verdicts > 0 ? Double(failing) / Double(verdicts) : 0 }

    /// The provider as an admin reads it.
    var providerName: String { Provider.displayName(item.provider) }

    /// The reasons for a sentence: the ones seen, else all of the item's.
    var reasonList: String { Wording.list(reasons.isEmpty ? item.reasons.map(\.reason) : reasons) }

    /// The opening sentence: the share and count, e.g. "83% of Play Integrity verdicts this week (1,204 of
    /// 1,450) failed with certificateMismatch." When the item is ok it also says why it does not alert.
    /// `qualifier` narrows the failing ones (", signed with a registered certificate").
    func opener(qualifier: String = "") -> String {
        if verdicts == 0 { return "No \(providerName) verdict arrived this week." }
        if failing == 0 {
            return "None of this week's \(Wording.count(verdicts, "\(providerName) verdict")) failed with "
                + "\(reasonList)\(qualifier)."
        }
        let sentence = "\(Wording.percent(failing, of: verdicts)) of \(providerName) verdicts this week "
            + "(\(Wording.number(failing)) of \(Wording.number(verdicts))) failed with \(reasonList)\(qualifier)"
        guard status == .ok else { return sentence + "." }
        if failing < thresholds.minimumFailing {
            return sentence + ": too few to point to the setup (\(thresholds.minimumFailing) are needed)."
        }
        return sentence + ": under the \(thresholds.warnFromPercent)% that points to the setup rather than "
            + "to some devices."
    }

    /// The item with the given wording; `fix` is dropped when the item is ok. An ok item over failing figures is
    /// one whose cause the configuration no longer has: it is `fixed`.
    func item(
        status: ChecklistStatus? = nil, title: String, detail: String, fix: String,
        observed: [ObservedValue] = [], registered: [String] = []
    ) -> ChecklistItem {
        let status = status ?? self.status
        return ChecklistItem(
            id: item.rawValue, status: status, title: title, detail: detail, fix: status == .ok ? "" : fix,
            evidence: ChecklistEvidence(
                provider: item.provider, verdicts: verdicts, failing: failing, share: share, reasons: reasons,
                observed: Array(observed.prefix(max(0, thresholds.observedLimit))), registered: registered),
            fixed: status == .ok && self.status != .ok)
    }
}
