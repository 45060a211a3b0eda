import Crypto
import Foundation
import Gatehouse
import JSON

extension TrafficBench {
    /// Times an ingested batch's phases in-process on a fresh database: reading the body (straight from its bytes as
    /// the endpoint does; and, for comparison, the general path of JSON parsing then validation), and
    /// `Verdicts.ingest` (rows, rollup sums and the write transaction), and of that the part before the database
    /// (a batch whose idempotency key was seen computes its rows, then stores nothing); medians over 200 batches, in
    /// milliseconds of this thread's CPU time (which other processes on the machine move less than elapsed time).
    static func phases(repository: String) throws {
        let directory = NSTemporaryDirectory() + "traffic-bench-phases-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (domain, environment, _, _) = try open(directory + "/db.sqlite", repository: repository, masterKey: try SecureRandom.bytes(32), now: nil)
        let verdicts = domain.verdicts
        let bytes = body()
        var times: [[Double]] = [[], [], [], [], []]
        func cpuNanoseconds() -> UInt64 {
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
        }
        func elapsed(since start: UInt64) -> Double { Double(cpuNanoseconds() - start) / 1e6 }
        for _ in 0..<200 {
            var start = cpuNanoseconds()
            let json = try JSONParser.parse(bytes)
            times[0].append(elapsed(since: start))
            start = cpuNanoseconds()
            let general = try VerdictBatch.parse(json, now: now)
            times[1].append(elapsed(since: start))
            start = cpuNanoseconds()
            guard let batch = VerdictBatch.parse(body: bytes, now: now), batch == general else {
                throw BenchError("the byte reader did not read the bench's batch as the general path does")
            }
            times[4].append(elapsed(since: start))
            start = cpuNanoseconds()
            _ = try verdicts.ingest(batch, environmentID: environment.id)
            times[2].append(elapsed(since: start))
            start = cpuNanoseconds()
            _ = try verdicts.ingest(batch, environmentID: environment.id, idempotencyKey: "seen")
            times[3].append(elapsed(since: start))
        }
        let medians = times.map { $0.sorted()[100] }
        print(String(format: "ingest phases per batch of 1,000 (%d bytes), median of 200, thread CPU time: read %.2f ms (general path: parse %.2f + validate %.2f), store %.2f ms (%.2f ms of it before the database), total %.2f ms",
                     bytes.count, medians[4], medians[0], medians[1], medians[2], medians[3], medians[4] + medians[2]))
    }
}
