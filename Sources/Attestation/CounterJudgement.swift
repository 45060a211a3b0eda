/// What one assertion counter means for a ``CounterWindow``.
public enum CounterJudgement: Sendable, Equatable {
    /// Accepted: the window after accepting the counter (commit it before answering).
    case accept(CounterWindow)
    /// forged `counterReused`: the counter equals the newest or was seen below it.
    case reused
    /// rejected `counterRegression`: the counter is 32 or more below the newest.
    case regression
}
