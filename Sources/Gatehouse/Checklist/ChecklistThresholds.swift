/// Every limit of the setup checklist, in one place.
///
/// A traffic item compares `failing` (verdicts of a provider failing for the item's reasons) with `verdicts`
/// (all verdicts of that provider, every status) over the window:
/// - `fail` when `failing` is at least ``minimumFailing`` and more than ``failAbovePercent`` of `verdicts`
///   (strictly: exactly 50% is not a failure);
/// - `warn` when `failing` is at least ``minimumFailing`` and at least ``warnFromPercent`` of `verdicts`
///   (exactly 20% warns), up to and including ``failAbovePercent``;
/// - `ok` otherwise — in particular whenever fewer than ``minimumFailing`` verdicts fail, however high the share.
///
/// The comparison is done in integers (`failing × 100` against `verdicts × percent`), so the edges are exact.
public struct ChecklistThresholds: Sendable, Equatable {
    /// Length of the window, seconds: the seven days before `now`.
    public var windowSeconds: Int64
    /// Fewest failing verdicts that can raise a warning or a failure.
    public var minimumFailing: Int
    /// A share strictly above this percentage fails.
    public var failAbovePercent: Int
    /// A share at or above this percentage (and not failing) warns.
    public var warnFromPercent: Int
    /// Most observed values an item shows.
    public var observedLimit: Int

    /// Creates thresholds; the defaults are the product's.
    public init(
        windowSeconds: Int64 = 7 * 86_400, minimumFailing: Int = 20, failAbovePercent: Int = 50,
        warnFromPercent: Int = 20, observedLimit: Int = 5
    ) {
        self.windowSeconds = windowSeconds
        self.minimumFailing = minimumFailing
        self.failAbovePercent = failAbovePercent
        self.warnFromPercent = warnFromPercent
        self.observedLimit = observedLimit
    }

    /// The product's thresholds: a week, 20 verdicts, more than 50% fails, 20% warns, five observed values.
    public static let standard = ChecklistThresholds()

    /// How a traffic item stands with `failing` of `verdicts` failing.
    public func status(failing: Int, of verdicts: Int) -> ChecklistStatus {
        guard failing >= minimumFailing, failing > 0, verdicts > 0 else { return .ok }
        if Self.percent(failing, exceeds: failAbovePercent, of: verdicts) { return .fail }
        if !Self.percent(failing, isBelow: warnFromPercent, of: verdicts) { return .warn }
        return .ok
    }

    /// Whether `part` is strictly more than `percent`% of `whole`, without overflow.
    static func percent(_ part: Int, exceeds percent: Int, of whole: Int) -> Bool {
        let left = part.multipliedFullWidth(by: 100)
        let right = whole.multipliedFullWidth(by: percent)
        return (left.high, left.low) > (right.high, right.low)
    }

    /// Whether `part` is strictly less than `percent`% of `whole`, without overflow.
    static func percent(_ part: Int, isBelow percent: Int, of whole: Int) -> Bool {
        let left = part.multipliedFullWidth(by: 100)
        let right = whole.multipliedFullWidth(by: percent)
        return (left.high, left.low) < (right.high, right.low)
    }
}
