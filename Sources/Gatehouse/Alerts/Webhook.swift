/// A webhook endpoint (docs/device-api.md "Alerts"): where events are delivered, which ones, about which
/// environments, and how its deliveries have gone. Its secret is never part of it (shown once, kept sealed).
public struct Webhook: Sendable, Equatable {
    public var id: String
    public var url: String
    public var description: String
    /// `["*"]` or event names.
    public var events: [String]
    /// `["*"]` or environment ids.
    public var environments: [String]
    public var enabled: Bool
    /// Why the server disabled it (3 days of failures), nil when it did not.
    public var disabledReason: String?
    /// Failures in a row, and when the run of failures began.
    public var failures: Int
    public var failingSince: Int64?
    public var lastAttemptAt: Int64?
    /// `"200"`, `"500"`, or the error (`timed out`, `refused: … resolves to an internal address`).
    public var lastResult: String?
    public var createdAt: Int64
    /// Until when the secret replaced by the last rotation also signs (nil: no rotation under way).
    public var previousSecretUntil: Int64?

    /// Whether an event of `type` about `environmentID` (nil: the control plane) goes to this endpoint.
    func receives(_ type: WebhookEventType, environmentID: String?) -> Bool {
        guard events.contains("*") || events.contains(type.rawValue) else { return false }
        guard let environmentID, !type.isControlPlane else { return true }
        return environments.contains("*") || environments.contains(environmentID)
    }
}

/// One attempt at delivering an event to an endpoint, as the deliveries list shows it.
public struct WebhookAttempt: Sendable, Equatable {
    public var eventID: String
    public var type: String
    public var at: Int64
    /// The receiver's HTTP status, nil when none came (`error` says why).
    public var status: Int?
    public var error: String?
    public var durationMilliseconds: Int64

    /// Any 2xx.
    public var succeeded: Bool { status.map { (200..<300).contains($0) } ?? false }

    /// The status, or the error, as the endpoint's last result shows it.
    var result: String { status.map(String.init) ?? error ?? "failed" }
}
