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
    /// m = 19 MiB, t = 2 line, following RFC 9106 §4's advice for memory-constrained servers (its second
    /// recommended option, t = 3 with 64 MiB, is out of budget here: 64 MiB with t = 2 already costs 145–165 ms CPU).
    ///
    /// Measured with `make bench-crypto` (release build, this 2-core Debian 12 VM, libargon2 20171227, one hash
    /// on one thread; the bench prints wall and thread CPU time):
    /// - this default costs 35–47 ms of CPU per hash (min–median over runs of 21–31 hashes);
    /// - on the idle machine (load 0.4) m = 19 MiB, t = 2 took 36 ms wall (median of 15), so t = 3 lands near
    ///   50 ms: inside the 30–100 ms login budget with room either side;
    /// - with the machine saturated (load 15, parallel compiles) wall time rose to 100–150 ms for this default,
    ///   while m = 32 MiB, t = 2 cost 60–76 ms CPU and 87–190 ms wall, and m = 64 MiB 145–165 ms CPU: too slow.
    public static let `default` = Argon2Parameters(memoryKiB: 19 * 1024, iterations: 3, parallelism: 1)
}
