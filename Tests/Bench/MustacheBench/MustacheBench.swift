import Foundation
import Mustache

/// Measures parse time and render time of the dashboard page; prints one line per figure.
@main
struct MustacheBench {
    static func main() throws {
        let renders = Int(ProcessInfo.processInfo.environment["BENCH_RENDERS"] ?? "") ?? 3000
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mustache-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, source) in DashboardTemplates.all {
            let file = directory.appendingPathComponent(name + ".mustache")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(source.utf8).write(to: file)
        }

        let loadStart = DispatchTime.now().uptimeNanoseconds
        let library = try TemplateLibrary(directory: directory.path)
        let loadMicros = Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1000

        var parseTimes: [Double] = []
        for _ in 0..<200 {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try TemplateLibrary(templates: DashboardTemplates.all)
            parseTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
        }

        let environments = Int(ProcessInfo.processInfo.environment["BENCH_ENVIRONMENTS"] ?? "") ?? 100
        var buildTimes: [Double] = []
        for _ in 0..<200 {
            let start = DispatchTime.now().uptimeNanoseconds
            let built = DashboardData.make(environments: environments)
            buildTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
            withExtendedLifetime(built) {}
        }
        let value = DashboardData.make(environments: environments)
        let page = "pages/environments"
        var size = 0
        for _ in 0..<200 { size = try library.renderBytes(page, value).count }
        var byteTimes: [Double] = []
        var cpuTimes: [Double] = []
        for _ in 0..<renders {
            let cpuStart = threadCPUNanoseconds()
            let start = DispatchTime.now().uptimeNanoseconds
            let bytes = try library.renderBytes(page, value)
            byteTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
            cpuTimes.append(Double(threadCPUNanoseconds() - cpuStart) / 1000)
            size = bytes.count
        }
        var reusedTimes: [Double] = []
        var buffer: [UInt8] = []
        for _ in 0..<renders {
            buffer.removeAll(keepingCapacity: true)
            let start = DispatchTime.now().uptimeNanoseconds
            try library.render(page, value, into: &buffer)
            reusedTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
        }
        var stringTimes: [Double] = []
        for _ in 0..<renders {
            let start = DispatchTime.now().uptimeNanoseconds
            let string = try library.render(page, value)
            stringTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
            size = string.utf8.count
        }

        let median = median(byteTimes)
        print("templates: \(library.names.count), environments: \(environments), output: \(size) bytes, renders: \(renders), load average: \(loadAverage())")
        print(String(format: "load from directory (read + parse + link, once): %.1f µs", loadMicros))
        print(String(format: "parse + link 5 templates (median of 200): %.1f µs", Self.median(parseTimes)))
        print(String(format: "build the value tree (median of 200): %.1f µs", Self.median(buildTimes)))
        print(String(format: "renderBytes: median %.1f µs, p90 %.1f µs, %.0f MB/s", median,
                     percentile(byteTimes, 0.9), Double(size) / median))
        print(String(format: "renderBytes, this thread's CPU time: median %.1f µs, %.0f MB/s (wall time includes "
                     + "waiting for a core on a loaded machine)", Self.median(cpuTimes), Double(size) / Self.median(cpuTimes)))
        print(String(format: "render(into:) reusing one buffer: median %.1f µs, %.0f MB/s", Self.median(reusedTimes),
                     Double(size) / Self.median(reusedTimes)))
        print(String(format: "render (String): median %.1f µs, p90 %.1f µs", Self.median(stringTimes),
                     percentile(stringTimes, 0.9)))
    }

    /// CPU time this thread has used, immune to time spent waiting for a core.
    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}
