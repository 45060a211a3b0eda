/// What a webhook can be told (docs/device-api.md "Alerts", "Events"): a checklist item changing state, a route in
/// `enforce` refusing too much, a spike of Apple's risk metric, a change to the control plane, and a test.
public enum WebhookEventType: String, Sendable, CaseIterable {
    case checklistFailing = "checklist.failing"
    case checklistWarning = "checklist.warning"
    case checklistPassing = "checklist.passing"
    case enforcementRefusing = "enforcement.refusing"
    case riskSpike = "appattest.riskSpike"
    case adminCreated = "security.adminCreated"
    case ownerChanged = "security.ownerChanged"
    case tokenCreated = "security.tokenCreated"
    case keyRolled = "security.keyRolled"
    case receiptKeyRotated = "security.receiptKeyRotated"
    case loginThrottled = "security.loginThrottled"
    case test = "webhook.test"

    /// Events about the control plane, sent to every endpoint subscribed to them whatever its environments.
    public var isControlPlane: Bool { rawValue.hasPrefix("security.") || self == .test }

    /// The event a checklist item turning `status` sends.
    static func checklist(_ status: ChecklistStatus) -> WebhookEventType {
        switch status {
        case .fail: .checklistFailing
        case .warn: .checklistWarning
        case .ok: .checklistPassing
        }
    }
}
