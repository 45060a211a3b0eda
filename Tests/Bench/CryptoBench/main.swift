// Times argon2id password hashing on this machine, to choose and document Argon2Parameters.default.
// Run in release: `make bench-crypto`. Reports wall time and this thread's CPU time (argon2 with p = 1 runs on the
// calling thread), so a figure taken while other processes load the machine can still be read.
import Crypto
import Glibc

struct Sample {
    var wall: Double
    var cpu: Double
}

func now(_ clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
}

func measure(_ body: () throws -> Void) rethrows -> Sample {
    let wall = now(CLOCK_MONOTONIC)
    let cpu = now(CLOCK_THREAD_CPUTIME_ID)
    try body()
    return Sample(wall: now(CLOCK_MONOTONIC) - wall, cpu: now(CLOCK_THREAD_CPUTIME_ID) - cpu)
}

func format(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

func report(_ label: String, _ parameters: Argon2Parameters, runs: Int) throws {
    let hasher = PasswordHasher(parameters: parameters)
    _ = try hasher.hash("warm-up")
    var samples: [Sample] = []
    for index in 0..<runs {
        samples.append(try measure { _ = try hasher.hash("correct horse battery staple \(index)") })
    }
    let wall = samples.map(\.wall).sorted()
    let cpu = samples.map(\.cpu).sorted()
    print("\(label) m=\(parameters.memoryKiB) KiB t=\(parameters.iterations) p=\(parameters.parallelism): "
        + "wall min \(format(wall[0])) / median \(format(wall[runs / 2])) ms, "
        + "cpu min \(format(cpu[0])) / median \(format(cpu[runs / 2])) ms (\(runs) hashes)")
}

let runs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 21 : 21
let candidates: [(String, Argon2Parameters)] = [
    ("default ", .default),
    ("m19 t2  ", Argon2Parameters(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)),
    ("m19 t3  ", Argon2Parameters(memoryKiB: 19 * 1024, iterations: 3, parallelism: 1)),
    ("m32 t2  ", Argon2Parameters(memoryKiB: 32 * 1024, iterations: 2, parallelism: 1)),
    ("m46 t1  ", Argon2Parameters(memoryKiB: 46 * 1024, iterations: 1, parallelism: 1)),
    ("m64 t2  ", Argon2Parameters(memoryKiB: 64 * 1024, iterations: 2, parallelism: 1)),
]
var load = [Double](repeating: 0, count: 3)
if getloadavg(&load, 3) == 3 { print("load average: \(format(load[0])) \(format(load[1])) \(format(load[2]))") }
do {
    for (label, parameters) in candidates { try report(label, parameters, runs: runs) }
} catch {
    print("bench failed: \(error)")
    exit(1)
}
