/// A key's assertion counters as docs/device-api.md keeps them: the newest counter N and which of the 32 counters
/// below it were seen (bit i set ⇔ counter N − 1 − i was seen).
///
/// A counter above N is accepted and becomes the newest; one in N − 32 < c < N not seen is accepted (assertions
/// may arrive out of order); N itself or one seen is reused; one at or below N − 32 is a regression. Only the bits
/// for N − 1 … N − 31 are ever consulted (N − 32 is a regression already), so the 32-bit mask is enough.
public struct CounterWindow: Sendable, Equatable, Hashable {
    /// The newest counter accepted (0 after registration: counter 0 is the attestation's).
    public var newest: UInt32
    /// Bit i set ⇔ counter `newest - 1 - i` was seen.
    public var seenBelow: UInt32

    /// The state after registration: newest 0, nothing below it seen.
    public static let fresh = CounterWindow(newest: 0, seenBelow: 0)

    /// The window with newest counter `newest` and seen mask `seenBelow`.
    public init(newest: UInt32, seenBelow: UInt32) {
        self.newest = newest
        self.seenBelow = seenBelow
    }

    /// How far below the newest a counter may be and still be accepted (exclusive).
    public static let width: UInt32 = 32

    /// What counter `c` means for this window.
    public func judge(_ c: UInt32) -> CounterJudgement {
        if c > newest {
            let shift = c - newest
            // Bits move up by `shift`; the old newest lands at bit shift - 1 (if it still fits).
            // Shifts of 32 or more give 0 with Swift's smart shift operators: no trap, nothing kept.
            var seen = seenBelow << shift
            if shift <= Self.width { seen |= UInt32(1) << (shift - 1) }
            return .accept(CounterWindow(newest: c, seenBelow: seen))
        }
        let distance = newest - c
        if distance == 0 { return .reused }
        if distance >= Self.width { return .regression }
        let bit = UInt32(1) << (distance - 1)
        if seenBelow & bit != 0 { return .reused }
        return .accept(CounterWindow(newest: newest, seenBelow: seenBelow | bit))
    }
}
