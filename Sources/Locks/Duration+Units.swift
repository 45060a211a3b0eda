extension Duration {
    /// Whole nanoseconds, clamped to `0...UInt64.max` (for monotonic deadlines).
    public var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (total, carry) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return carry ? .max : total
    }

    /// Whole milliseconds, clamped to `0...Int.max`; `roundingUp`, a positive duration is never 0 (what libcurl reads
    /// as "no limit").
    public func milliseconds(roundingUp: Bool = false) -> Int {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, tooLong) = seconds.multipliedReportingOverflow(by: 1000)
        if tooLong { return .max }
        let (total, overflow) = whole.addingReportingOverflow((attoseconds + (roundingUp ? 999_999_999_999_999 : 0)) / 1_000_000_000_000_000)
        return overflow ? .max : Int(total)
    }

    /// The duration in seconds, as a floating-point number (for metrics and thread waits).
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
