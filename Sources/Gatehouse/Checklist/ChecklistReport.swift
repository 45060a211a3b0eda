/// The setup checklist of one environment over one window.
public struct ChecklistReport: Sendable, Equatable {
    /// First second of the window (included), unix seconds.
    public var windowFrom: Int64
    /// End of the window (excluded), unix seconds.
    public var windowTo: Int64
    /// Every item, failing ones first, then warnings, then the ones that are fine; within a status, in the
    /// order the checklist defines (configuration items, then traffic items).
    public var items: [ChecklistItem]

    /// Creates a report.
    public init(windowFrom: Int64, windowTo: Int64, items: [ChecklistItem]) {
        self.windowFrom = windowFrom
        self.windowTo = windowTo
        self.items = items
    }

    /// The item with this id, if the report has it.
    public func item(_ id: String) -> ChecklistItem? {
        items.first { $0.id == id }
    }
}

/// How many of a report's items fail and warn: the badge of an environment in the environments list.
public struct ChecklistCounts: Sendable, Equatable {
    public var failing: Int
    public var warning: Int

    /// The counts of `report`'s items.
    public init(_ report: ChecklistReport) {
        failing = report.items.reduce(0) { $0 + ($1.status == .fail ? 1 : 0) }
        warning = report.items.reduce(0) { $0 + ($1.status == .warn ? 1 : 0) }
    }
}
