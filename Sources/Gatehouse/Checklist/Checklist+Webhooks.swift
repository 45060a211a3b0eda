extension Checklist {
    /// `webhooks.failing`: an endpoint receiving this environment's events that Gatehouse disabled after 3 days of
    /// failures (fail), or that is failing now (warn): whoever relies on it is told nothing.
    static func webhooks(_ endpoints: [Webhook], environmentID: String) -> ChecklistItem {
        let id = "webhooks.failing"
        let mine = endpoints.filter { $0.environments.contains("*") || $0.environments.contains(environmentID) }
        let given = mine.filter { !$0.enabled && $0.disabledReason != nil }
        let failing = mine.filter { $0.enabled && $0.failures > 0 }
        var evidence = ChecklistEvidence(verdicts: mine.count, failing: given.count + failing.count)
        evidence.registered = mine.map(\.url)
        if let endpoint = given.first {
            return ChecklistItem(
                id: id, status: .fail, title: "A webhook was disabled after 3 days of failed deliveries",
                detail: "\(endpoint.url)\(endpoint.description.isEmpty ? "" : " (\(endpoint.description))") receives nothing: "
                    + (endpoint.disabledReason ?? "") + (given.count > 1 ? " \(Wording.count(given.count - 1, "other webhook")) too." : ""),
                fix: "Fix the receiver (its last answer is on the Webhooks page), then enable the webhook again there: it resumes with the events of the last 3 days.",
                evidence: evidence)
        }
        if let endpoint = failing.first {
            return ChecklistItem(
                id: id, status: .warn, title: "A webhook's deliveries are failing",
                detail: "The last \(Wording.count(endpoint.failures, "delivery")) to \(endpoint.url) failed (last: \(endpoint.lastResult ?? "?")); "
                    + "Gatehouse retries for 3 days, then disables it.",
                fix: "Check the receiver: the Webhooks page lists each attempt with its answer.", evidence: evidence)
        }
        return ChecklistItem(id: id, status: .ok, title: mine.isEmpty ? "No webhook receives this environment's alerts" : "Webhooks deliver",
                             detail: mine.isEmpty ? "Create one on the Webhooks page to be told when an item here turns red."
                                : "\(Wording.count(mine.count, "webhook")) \(mine.count == 1 ? "receives" : "receive") this environment's events.",
                             fix: "", evidence: evidence)
    }
}
