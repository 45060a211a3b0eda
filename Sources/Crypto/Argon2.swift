import Dispatch
import Glibc
import CArgon2
import COpenSSL

/// Raw Argon2 (RFC 9106) through libargon2's `argon2_ctx`, with every input of the RFC exposed
/// (secret and associated data included) so the RFC's test vectors can be checked.
/// Applications use ``PasswordHasher``.
package enum Argon2 {
    /// The three Argon2 variants (RFC 9106 §3.4). Passwords use `id`.
    package enum Variant: String, Sendable {
        /// Data-dependent memory access (RFC 9106 §3.4.1.1).
        case d = "argon2d"
        /// Data-independent memory access (§3.4.1.2).
        case i = "argon2i"
        /// Argon2i for the first half pass, Argon2d after (§3.4.1.3): the one RFC 9106 says to use.
        case id = "argon2id"

        var cValue: argon2_type {
            switch self {
            case .d: Argon2_d
            case .i: Argon2_i
            case .id: Argon2_id
            }
        }
    }

    /// Argon2 version 1.3 (0x13 = 19), the only one RFC 9106 specifies.
    package static let version: UInt32 = 0x13

    /// How many argon2 computations may run at once: all cores but one (at least one).
    package static let concurrency = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)) - 1)
    private static let gate = DispatchSemaphore(value: concurrency)

    /// Computes an Argon2 tag of `hashLength` bytes (version 0x13).
    ///
    /// `parallelism` is both the lane count and the thread count. Inputs are copied into buffers that are
    /// zeroed after use.
    /// - Throws: ``CryptoError`` with libargon2's message when a parameter is out of its range
    ///   (salt shorter than 8 bytes, memory below 8 × parallelism KiB, …) or memory cannot be allocated.
    package static func hash(
        variant: Variant,
        password: [UInt8],
        salt: [UInt8],
        secret: [UInt8] = [],
        associatedData: [UInt8] = [],
        memoryKiB: UInt32,
        iterations: UInt32,
        parallelism: UInt32,
        hashLength: Int
    ) throws -> [UInt8] {
        // At most `concurrency` computations at once in this process: each takes a core and `memoryKiB` for tens of
        // milliseconds, and a burst of logins must not take every core (or the memory) from other requests.
        gate.wait()
        defer { gate.signal() }
        let limit = Int(UInt32.max)
        guard hashLength > 0, hashLength <= limit, password.count <= limit, salt.count <= limit,
              secret.count <= limit, associatedData.count <= limit else {
            throw CryptoError(operation: "Argon2", reason: "an input length is out of range")
        }
        var output = [UInt8](repeating: 0, count: hashLength)
        let passwordCopy = SensitiveBuffer(password)
        let saltCopy = SensitiveBuffer(salt)
        let secretCopy = SensitiveBuffer(secret)
        let adCopy = SensitiveBuffer(associatedData)
        defer {
            passwordCopy.wipe()
            saltCopy.wipe()
            secretCopy.wipe()
            adCopy.wipe()
        }
        let status = output.withUnsafeMutableBufferPointer { out -> Int32 in
            var context = argon2_context(
                out: out.baseAddress, outlen: UInt32(hashLength),
                pwd: passwordCopy.pointer, pwdlen: UInt32(password.count),
                salt: saltCopy.pointer, saltlen: UInt32(salt.count),
                secret: secretCopy.pointer, secretlen: UInt32(secret.count),
                ad: adCopy.pointer, adlen: UInt32(associatedData.count),
                t_cost: iterations, m_cost: memoryKiB, lanes: parallelism, threads: parallelism,
                version: version, allocate_cbk: argon2MapMemory, free_cbk: argon2UnmapMemory, flags: 0)
            return argon2_ctx(&context, variant.cValue)
        }
        guard status == ARGON2_OK.rawValue else {
            let message = argon2_error_message(status).map { String(cString: $0) } ?? "error \(status)"
            throw CryptoError(operation: "Argon2", reason: message)
        }
        return output
    }
}

/// A heap copy of bytes that is zeroed before it is freed (passwords handed to C).
private final class SensitiveBuffer {
    /// nil for empty input: libargon2 accepts NULL with a zero length.
    let pointer: UnsafeMutablePointer<UInt8>?
    private let count: Int

    init(_ bytes: [UInt8]) {
        count = bytes.count
        if bytes.isEmpty {
            pointer = nil
        } else {
            let allocated = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
            allocated.initialize(from: bytes, count: bytes.count)
            pointer = allocated
        }
    }

    /// Overwrites the copy with zeros in a way the optimizer cannot drop (`OPENSSL_cleanse`).
    func wipe() {
        if let pointer { OPENSSL_cleanse(pointer, count) }
    }

    deinit { pointer?.deallocate() }
}

/// Argon2's working memory (`memoryKiB`, tens of MiB) comes straight from mmap and goes back with munmap. Through
/// malloc, glibc's adaptive mmap threshold soon serves such blocks from per-thread arenas that keep them after
/// `free`: every worker thread that ever checked a password would hold its own copy, resident for good.
private func argon2MapMemory(_ memory: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, _ bytes: Int) -> Int32 {
    guard let memory else { return ARGON2_MEMORY_ALLOCATION_ERROR.rawValue }
    let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    guard let mapped, mapped != MAP_FAILED else {
        memory.pointee = nil
        return ARGON2_MEMORY_ALLOCATION_ERROR.rawValue
    }
    memory.pointee = mapped.assumingMemoryBound(to: UInt8.self)
    return ARGON2_OK.rawValue
}

/// Returns argon2's working memory (already wiped by libargon2) to the system.
private func argon2UnmapMemory(_ memory: UnsafeMutablePointer<UInt8>?, _ bytes: Int) {
    guard let memory else { return }
    munmap(memory, bytes)
}
