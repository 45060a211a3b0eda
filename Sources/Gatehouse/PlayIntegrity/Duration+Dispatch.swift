extension Duration {
    /// Whole milliseconds, at least 0 and at most a day: what a `DispatchSemaphore` wait is given.
    var dispatchMilliseconds: Int {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int(min(max(0, milliseconds), 86_400_000))
    }
}
