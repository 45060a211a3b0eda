/// One line of the setup checklist: a check, how it stands, what was seen and what to do.
public struct ChecklistItem: Sendable, Equatable {
    /// Stable identifier, e.g. `android.certificateNotRegistered`.
    public var id: String
    /// How the check stands.
    public var status: ChecklistStatus
    /// One line saying what is wrong (or, when ok, what is right).
    public var title: String
    /// What was seen, with the numbers and the observed against the registered values.
    public var detail: String
    /// What the admin should do; empty when there is nothing to do.
    public var fix: String
    /// The figures the item was decided on.
    public var evidence: ChecklistEvidence
    /// Ok because the configuration no longer has the fault the week's failing verdicts show: the item stays in
    /// view so the admin sees the fix take.
    public var fixed: Bool

    /// Creates an item.
    public init(
        id: String, status: ChecklistStatus, title: String, detail: String, fix: String,
        evidence: ChecklistEvidence, fixed: Bool = false
    ) {
        self.id = id
        self.status = status
        self.title = title
        self.detail = detail
        self.fix = fix
        self.evidence = evidence
        self.fixed = fixed
    }
}
