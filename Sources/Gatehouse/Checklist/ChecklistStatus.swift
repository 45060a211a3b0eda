/// How a checklist item stands.
public enum ChecklistStatus: String, Sendable, Equatable, CaseIterable {
    /// Something is broken: genuine phones fail, or nothing can work until it is fixed.
    case fail
    /// Something deserves a look, but may be intended or is not (yet) hurting most verdicts.
    case warn
    /// Nothing to do.
    case ok
}
