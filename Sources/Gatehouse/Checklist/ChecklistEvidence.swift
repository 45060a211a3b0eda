/// What a checklist item was decided on: the counts, the reasons and the observed against the registered values.
public struct ChecklistEvidence: Sendable, Equatable {
    /// The provider the item is about (`"play-integrity"` or `"app-attest"`), or `nil` when it is about neither.
    public var provider: String?
    /// All verdicts of the provider in the window, every status.
    public var verdicts: Int
    /// Verdicts that failed in the way the item is about.
    public var failing: Int
    /// `failing / verdicts`, 0 when there were no verdicts.
    public var share: Double
    /// The reasons of the item that were seen in the window.
    public var reasons: [String]
    /// The values devices reported most, by count (descending) then value (ascending), at most five.
    public var observed: [ObservedValue]
    /// The registered values to compare them with.
    public var registered: [String]

    /// Creates evidence.
    public init(
        provider: String? = nil, verdicts: Int = 0, failing: Int = 0, share: Double = 0,
        reasons: [String] = [], observed: [ObservedValue] = [], registered: [String] = []
    ) {
        self.provider = provider
        self.verdicts = verdicts
        self.failing = failing
        self.share = share
        self.reasons = reasons
        self.observed = observed
        self.registered = registered
    }
}

extension ChecklistEvidence {
    /// The share as an admin reads it (`"83%"`, `"50.1%"`, never a round figure it is not).
    public var shareText: String { Wording.percent(failing, of: verdicts) }
}

extension Checklist {
    /// A count as the checklist writes it: `1204` → `"1,204"`.
    public static func number(_ value: Int) -> String { Wording.number(value) }
}
