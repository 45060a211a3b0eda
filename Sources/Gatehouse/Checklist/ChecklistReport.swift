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
