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

    /// The parameters new admin passwords are hashed with: argon2id, m = 19 MiB, t = 2, p = 1, 16-byte salt,
    /// 32-byte hash — OWASP's first argon2id configuration, within RFC 9106 §4's memory-constrained guidance.
    ///
    /// Measured: TIMING_PLACEHOLDER
    public static let `default` = Argon2Parameters(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)
}
