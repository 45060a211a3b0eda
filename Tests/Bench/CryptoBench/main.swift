// Times argon2id password hashing on this machine, to choose and document Argon2Parameters.default.
// Run in release: `make bench-crypto` (or `swift build -c release --product CryptoBench && .build/release/CryptoBench`).
import Crypto
import Glibc

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    try body()
    clock_gettime(CLOCK_MONOTONIC, &end)
    return Double(end.tv_sec - start.tv_sec) * 1000 + Double(end.tv_nsec - start.tv_nsec) / 1_000_000
}

func report(_ label: String, _ parameters: Argon2Parameters, runs: Int = 15) throws {
    let hasher = PasswordHasher(parameters: parameters)
    _ = try hasher.hash("warm-up")
    var samples: [Double] = []
    for index in 0..<runs {
        samples.append(try milliseconds { _ = try hasher.hash("correct horse battery staple \(index)") })
    }
    samples.sort()
    let median = samples[samples.count / 2]
    let line = "\(label) m=\(parameters.memoryKiB) KiB t=\(parameters.iterations) p=\(parameters.parallelism): "
        + "min \(Int(samples[0] * 10) / 10) ms, median \(Int(median * 10) / 10) ms, max \(Int((samples.last ?? 0) * 10) / 10) ms over \(runs) hashes"
    print(line)
}

let candidates: [(String, Argon2Parameters)] = [
    ("default  ", .default),
    ("owasp-1  ", Argon2Parameters(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)),
    ("owasp-2  ", Argon2Parameters(memoryKiB: 46 * 1024, iterations: 1, parallelism: 1)),
    ("m32 t2   ", Argon2Parameters(memoryKiB: 32 * 1024, iterations: 2, parallelism: 1)),
    ("m46 t2   ", Argon2Parameters(memoryKiB: 46 * 1024, iterations: 2, parallelism: 1)),
    ("m64 t2   ", Argon2Parameters(memoryKiB: 64 * 1024, iterations: 2, parallelism: 1)),
    ("m19 t3   ", Argon2Parameters(memoryKiB: 19 * 1024, iterations: 3, parallelism: 1)),
]
do {
    for (label, parameters) in candidates { try report(label, parameters) }
} catch {
    print("bench failed: \(error)")
    exit(1)
}
