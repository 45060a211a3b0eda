import Locks

// The server's threads wait on the `ConditionLock` of the `Locks` module (SQLite's pools use the same one); these
// names let every file of the server use it without an import of its own.
typealias ConditionLock = Locks.ConditionLock

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`), the clock of `ConditionLock.wait(untilNanoseconds:)`.
func monotonicNanoseconds() -> UInt64 {
    Locks.monotonicNanoseconds()
}
