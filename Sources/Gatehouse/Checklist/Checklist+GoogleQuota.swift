extension Checklist {
    /// The share of the daily quota from which `android.googleQuota` warns, and from which it fails.
    static let googleQuotaWarnShare = 0.8

    /// `android.googleQuota`: today's use of the environment's daily quota (`playIntegrity.dailyQuota`), the larger
    /// of two counts, named: the calls to Google's decodeIntegrityToken, and the tokens judged for one package (the
    /// quota binds the tokens phones ask for, decoded here or by Google); by Pacific day, Google's. `warn` from 80 %,
    /// `fail` from 100 % (Google then refuses the rest of the day: phones get no token, or `googleUnreachable`, and
    /// under attack mode their requests are challenged); `ok` below, or when nothing counts.
    ///
    /// When the hourly cap on calls for tokens Google could not decode refused tokens in the last day, an item that
    /// would be `ok` warns instead, and every item says so: someone may be sending JWE-shaped junk.
    static func googleQuota(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        var item = googleQuotaUse(configuration)
        guard let capped = configuration.googleUndecodableCapped else { return item }
        let sentence = "In the hour from \(Wording.time(capped.hour)) Google could not decode \(Wording.number(capped.undecodable)) tokens sent to it, the hourly cap for this environment, and \(Wording.number(capped.refused)) more tokens that no local key opened were answered googleBudgetExceeded without a call until the hour turned: someone may be sending junk tokens with the public key, and genuine phones whose tokens need Google waited too."
        let fix = "Set local response keys (Play Console → App integrity → Response encryption) so genuine tokens are decoded here and never wait for Google; the cap is --google-undecodable-per-hour (default 1 % of playIntegrity.dailyQuota)."
        if item.status == .ok {
            item = ChecklistItem(id: item.id, status: .warn, title: "Google calls for undecodable tokens reached the hourly cap",
                                 detail: item.detail + " " + sentence, fix: fix, evidence: item.evidence)
        } else {
            item.detail += " " + sentence
        }
        return item
    }

    /// `android.googleQuota` from today's use alone.
    static func googleQuotaUse(_ configuration: ChecklistConfiguration) -> ChecklistItem {
        let id = "android.googleQuota"
        let decodes = configuration.googleDecodesToday, tokens = configuration.tokensToday, quota = max(1, configuration.dailyQuota)
        let evidence = ChecklistEvidence(provider: Provider.playIntegrity)
        guard configuration.serviceAccountSet || tokens > 0 || configuration.googleUndecodableCapped != nil else {
            return ChecklistItem(id: id, status: .ok, title: "No Play Integrity token counted today",
                                 detail: "No token was judged today and no service account is set, so no quota is spent.", fix: "",
                                 evidence: evidence)
        }
        let used = configuration.serviceAccountSet ? max(decodes, tokens) : tokens
        let which = tokens > decodes
            ? "tokens phones asked Google for (judged here for one package, decoded locally or by Google)"
            : "decodes through Google"
        let share = Double(used) / Double(quota)
        let counted = "\(Wording.number(used)) of the daily quota of \(Wording.number(quota)) \(which) were used today (Pacific time, Google's day), \(Int((share * 100).rounded(.down))) %."
        // When the tokens phones ask for are the larger count, Google refuses them their next tokens; when the decodes
        // are, it refuses this server's decodes.
        let byTokens = used == tokens && tokens > decodes
        if share >= 1 {
            return ChecklistItem(
                id: id, status: .fail, title: byTokens ? "Today's quota of Play Integrity tokens is spent" : "Today's quota of decodes through Google is spent",
                detail: counted + (byTokens
                    ? " Google refuses phones their next tokens today (TOO_MANY_REQUESTS on the phone): they bring none, and under attack mode their requests are challenged."
                    : " Google refuses the rest of today's decodes: genuine phones get googleUnreachable, and under attack mode their requests are challenged."),
                fix: byTokens
                    ? "Ask Google for a higher quota (Play Console → App integrity) and raise playIntegrity.dailyQuota to match, or ask phones for tokens less often (cache the verdict: a receipt lasts 10 minutes)."
                    : "Set local response keys (Play Console → App integrity → Response encryption) so tokens are decoded here without Google, or ask Google for a higher quota and raise playIntegrity.dailyQuota to match.",
                evidence: evidence)
        }
        if share >= googleQuotaWarnShare {
            return ChecklistItem(
                id: id, status: .warn, title: byTokens ? "Most of today's quota of Play Integrity tokens is used" : "Most of today's quota of decodes through Google is used",
                detail: counted + (byTokens ? " Once it is spent Google refuses phones their tokens for the rest of the day."
                                            : " Once it is spent Google refuses the rest of the day's decodes."),
                fix: byTokens
                    ? "Ask Google for a higher quota and raise playIntegrity.dailyQuota to match, or ask phones for tokens less often."
                    : "Set local response keys so tokens are decoded here, or ask Google for a higher quota and raise playIntegrity.dailyQuota to match. Replayed and repeated tokens are never sent twice.",
                evidence: evidence)
        }
        return ChecklistItem(id: id, status: .ok, title: byTokens ? "Play Integrity tokens are within today's quota" : "Decodes through Google are within today's quota",
                             detail: counted, fix: "", evidence: evidence)
    }
}
