import JSON

/// The body of an event as it is delivered (docs/device-api.md "Events"): `{"type", "timestamp", "data", "text"}`, the
/// text a sentence a person reads, with a link to the dashboard when the server knows its public address. Made the
/// same at every attempt from what the outbox holds.
enum WebhookBody {
    static func make(_ event: WebhookOutboxTable.Event, publicURL: String?) -> [UInt8] {
        var text = event.text
        if let publicURL, let path = link(event) { text += " " + publicURL + path }
        return JSON.object([
            .init("type", .string(event.type)),
            .init("timestamp", .string(Timestamp.format(event.createdAt))),
            .init("data", event.data),
            .init("text", .string(text)),
        ]).serialized()
    }

    /// Where on the dashboard the event is to be looked at.
    static func link(_ event: WebhookOutboxTable.Event) -> String? {
        if let environmentID = event.environmentID {
            return event.type == WebhookEventType.enforcementRefusing.rawValue ? "/environments/\(environmentID)/enforcement"
                : "/environments/\(environmentID)/traffic"
        }
        if event.type.hasPrefix("security.") { return "/audit" }
        return "/webhooks"
    }
}
