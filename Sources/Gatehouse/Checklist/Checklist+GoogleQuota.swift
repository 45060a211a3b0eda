extension Checklist {
    /// The share of the daily quota from which `android.googleQuota` warns, and from which it fails.
    static let googleQuotaWarnShare = 0.8

    /// `android.googleQuota`: today's calls to Google's decodeIntegrityToken against the environment's daily quota
    /// (`playIntegrity.dailyQuota`): `warn` from 80 %, `fail` from 100 % (Google then refuses the rest of the day,
    /// and genuine phones get `googleUnreachable` or, under attack mode, `challenge`); `ok` below, or without a
    /// service account.
    static func googleQuota(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        let id = "android.googleQuota"
        let used = configuration.googleDecodesToday, quota = max(1, configuration.dailyQuota)
        let evidence = ChecklistEvidence(provider: Provider.playIntegrity)
        guard configuration.serviceAccountSet else {
            return ChecklistItem(id: id, status: .ok, title: "No decoding through Google",
                                 detail: "No service account is set, so no token is sent to Google and no quota is spent.", fix: "",
                                 evidence: evidence)
        }
        let share = Double(used) / Double(quota)
        let counted = "\(Wording.number(used)) of the daily quota of \(Wording.number(quota)) decodes through Google were used today (UTC), \(Int((share * 100).rounded(.down))) %."
        if share >= 1 {
            return ChecklistItem(
                id: id, status: .fail, title: "Today's quota of decodes through Google is spent",
                detail: counted + " Google refuses the rest of today's decodes: genuine phones get googleUnreachable, "
                    + "and under attack mode their requests are challenged.",
                fix: "Set local response keys (Play Console → App integrity → Response encryption) so tokens are decoded "
                    + "here without Google, or ask Google for a higher quota and raise playIntegrity.dailyQuota to match.",
                evidence: evidence)
        }
        if share >= googleQuotaWarnShare {
            return ChecklistItem(
                id: id, status: .warn, title: "Most of today's quota of decodes through Google is used",
                detail: counted + " Once it is spent Google refuses the rest of the day's decodes.",
                fix: "Set local response keys so tokens are decoded here, or ask Google for a higher quota and raise "
                    + "playIntegrity.dailyQuota to match. Replayed and repeated tokens are never sent twice.",
                evidence: evidence)
        }
        return ChecklistItem(id: id, status: .ok, title: "Decodes through Google are within today's quota", detail: counted, fix: "",
                             evidence: evidence)
    }
}
