/// What one judged call came with (docs/device-api.md "Outcomes"): exactly one per call, the first that applies in the
/// order of the cases.
public enum EnforcementOutcome: String, Sendable, Equatable, Hashable, CaseIterable {
    /// No `antibot-token`.
    case missing
    /// A receipt that is not one of ours, expired, of another environment, or without its proof.
    case invalid
    /// A receipt spent before (`consumed`).
    case reused
    /// A valid receipt whose action is `challenge` (attack mode).
    case challenge
    /// A valid receipt that is not what the route requires (`unbound`, `unattested`).
    case unmet
    /// Everything holds.
    case verified
}

/// Where a call was judged: by Gatehouse's edge check, or in a backend's middleware that reported its counts.
public enum OutcomeSource: String, Sendable, Equatable, Hashable, CaseIterable {
    case edge
    case backend
}

/// Counts of calls by outcome (every outcome present).
public struct OutcomeCounts: Sendable, Equatable {
    private var counts: [Int] = Array(repeating: 0, count: EnforcementOutcome.allCases.count)

    public init() {}

    public subscript(outcome: EnforcementOutcome) -> Int {
        get { counts[Self.index(outcome)] }
        set { counts[Self.index(outcome)] = newValue }
    }

    /// Every call counted.
    public var total: Int { counts.reduce(0, +) }
    /// What `enforce` would have refused: every outcome but `verified`.
    public var wouldRefuse: Int { total - self[.verified] }

    /// Adds `other`'s counts.
    public mutating func add(_ other: OutcomeCounts) {
        for i in counts.indices { counts[i] += other.counts[i] }
    }

    private static func index(_ outcome: EnforcementOutcome) -> Int {
        EnforcementOutcome.allCases.firstIndex(of: outcome) ?? 0
    }
}
