/// A small deterministic random number generator (SplitMix64): the same sequence for a seed on every platform, for
/// what must replay (a property test's failing sequence, the demo's traffic, a bench's data). Not for secrets: use
/// `Crypto.SecureRandom` there.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 bits of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
