extension Duration {
    /// The duration in whole nanoseconds, clamped at zero (for monotonic deadlines).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        let total = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        return total <= 0 ? 0 : UInt64(min(total, 1.8e19))
    }
}
