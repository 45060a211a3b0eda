/// Hashes and verifies passwords with argon2id (RFC 9106), storing PHC strings
/// (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`).
///
/// Passwords are hashed as their UTF-8 bytes, without Unicode normalization. Hashing costs tens of
/// milliseconds and ``Argon2Parameters/memoryKiB`` of memory: call it off I/O threads.
public struct PasswordHasher: Sendable {
    /// The parameters new hashes use; ``needsRehash(_:)`` compares stored hashes against them.
    public let parameters: Argon2Parameters

    /// Creates a hasher for `parameters` (``Argon2Parameters/default`` unless told otherwise).
    public init(parameters: Argon2Parameters = .default) {
        self.parameters = parameters
    }

    /// Hashes `password` with a fresh random salt and returns the PHC string.
    ///
    /// - Throws: ``CryptoError`` when the random generator fails, or when the parameters are outside what
    ///   libargon2 accepts (or outside what ``verify(_:encoded:)`` agrees to check: salt 8–64 bytes,
    ///   hash 16–64 bytes, at most 1 GiB, 64 passes and 64 lanes).
    public func hash(_ password: String) throws -> String {
        guard PHCString.saltLengths.contains(parameters.saltLength),
              PHCString.hashLengths.contains(parameters.hashLength),
              parameters.memoryKiB <= PHCString.maximumMemoryKiB,
              parameters.iterations <= PHCString.maximumIterations,
              parameters.parallelism <= PHCString.maximumParallelism else {
            throw CryptoError(operation: "password hash", reason: "Argon2 parameters are outside the supported range")
        }
        let salt = try SecureRandom.bytes(parameters.saltLength)
        let tag = try Argon2.hash(
            variant: .id, password: Array(password.utf8), salt: salt,
            memoryKiB: parameters.memoryKiB, iterations: parameters.iterations,
            parallelism: parameters.parallelism, hashLength: parameters.hashLength)
        return PHCString(variant: .id, memoryKiB: parameters.memoryKiB, iterations: parameters.iterations,
                         parallelism: parameters.parallelism, salt: salt, hash: tag).encoded
    }

    /// Whether `password` matches the PHC string `encoded` (argon2id, argon2i or argon2d, version 19), using the
    /// parameters recorded in `encoded` and a constant-time comparison.
    ///
    /// Returns false for a malformed string, for costs beyond the verification bounds, and when libargon2
    /// fails (for example when memory cannot be allocated).
    public func verify(_ password: String, encoded: String) -> Bool {
        guard let stored = PHCString(parsing: encoded) else { return false }
        guard let computed = try? Argon2.hash(
            variant: stored.variant, password: Array(password.utf8), salt: stored.salt,
            memoryKiB: stored.memoryKiB, iterations: stored.iterations,
            parallelism: stored.parallelism, hashLength: stored.hash.count) else { return false }
        return constantTimeEquals(computed, stored.hash)
    }

    /// A PHC string with this hasher's parameters and random salt and hash, that no password matches. Verifying
    /// against it costs what verifying a real hash costs, so unknown accounts take as long as known ones; making it
    /// costs no argon2 work.
    public func decoy() throws -> String {
        PHCString(variant: .id, memoryKiB: parameters.memoryKiB, iterations: parameters.iterations,
                  parallelism: parameters.parallelism, salt: try SecureRandom.bytes(parameters.saltLength),
                  hash: try SecureRandom.bytes(parameters.hashLength)).encoded
    }

    /// Whether a hash that just verified should be replaced by a fresh ``hash(_:)``: true when it is not
    /// argon2id, when any cost or length differs from ``parameters``, or when it does not parse.
    public func needsRehash(_ encoded: String) -> Bool {
        guard let stored = PHCString(parsing: encoded) else { return true }
        return stored.variant != .id
            || stored.memoryKiB != parameters.memoryKiB
            || stored.iterations != parameters.iterations
            || stored.parallelism != parameters.parallelism
            || stored.salt.count != parameters.saltLength
            || stored.hash.count != parameters.hashLength
    }
}
