import Foundation
import Synchronization

/// Request counters and a latency histogram, written as Prometheus text (exposition format 0.0.4).
public final class Metrics: Sendable {
    struct Key: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    struct State {
        var requests: [Key: Int] = [:]
        var buckets = [Int](repeating: 0, count: Metrics.bounds.count)
        var count = 0
        var sum = 0.0
    }

    /// Histogram upper bounds in seconds.
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    /// One part of the counts; requests spread over several so that workers rarely meet on one lock (every request
    /// of every worker counts itself here).
    final class Shard: Sendable {
        let state = Mutex(State())
    }

    private let shards = (0..<16).map { _ in Shard() }
    /// Gauges read when scraped (open connections, database write queue).
    private let gauges = Mutex<[(name: String, help: String, read: @Sendable () -> Int)]>([])
    /// Counter families read when scraped, with their labels (Google decodes per environment; verdicts per
    /// environment, provider and status).
    private let counters = Mutex<[(name: String, help: String, labels: [String], read: @Sendable () -> [[String]: Int])]>([])

    public init() {}

    /// Counts one request of `route` (the pattern, not the path: bounded label values) taking `seconds`.
    public func record(method: String, route: String, status: Int, seconds: Double) {
        let shard = shards[Int((UInt(pthread_self()) >> 12) & 15)]  // threads differ in their stack address
        shard.state.withLock { s in
            s.requests[Key(method: method, route: route, status: status), default: 0] += 1
            for (i, bound) in Self.bounds.enumerated() where seconds <= bound { s.buckets[i] += 1 }
            s.count += 1
            s.sum += seconds
        }
    }

    /// Adds a gauge read at every scrape.
    public func gauge(_ name: String, help: String, _ read: @escaping @Sendable () -> Int) {
        gauges.withLock { $0.append((name, help, read)) }
    }

    /// Adds a counter family with one `label`, its values per label value read at every scrape.
    public func counters(_ name: String, help: String, label: String, _ read: @escaping @Sendable () -> [String: Int]) {
        counters(name, help: help, labels: [label]) { Dictionary(uniqueKeysWithValues: read().map { ([$0.key], $0.value) }) }
    }

    /// Adds a counter family with `labels`, its values per list of label values (in the order of `labels`) read at
    /// every scrape.
    public func counters(_ name: String, help: String, labels: [String], _ read: @escaping @Sendable () -> [[String]: Int]) {
        counters.withLock { $0.append((name, help, labels, read)) }
    }

    /// The exposition text.
    public func text() -> String {
        var s = State()
        for shard in shards {
            let part = shard.state.withLock { $0 }
            s.requests.merge(part.requests, uniquingKeysWith: +)
            for i in s.buckets.indices { s.buckets[i] += part.buckets[i] }
            s.count += part.count
            s.sum += part.sum
        }
        var out = "# HELP gatehouse_http_requests_total HTTP requests by method, route and status.\n# TYPE gatehouse_http_requests_total counter\n"
        for (key, n) in s.requests.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            out += "gatehouse_http_requests_total{method=\"\(key.method)\",route=\"\(Self.escape(key.route))\",status=\"\(key.status)\"} \(n)\n"
        }
        out += "# HELP gatehouse_http_request_duration_seconds Time to handle a request.\n# TYPE gatehouse_http_request_duration_seconds histogram\n"
        for (i, bound) in Self.bounds.enumerated() {
            out += "gatehouse_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(s.buckets[i])\n"
        }
        out += "gatehouse_http_request_duration_seconds_bucket{le=\"+Inf\"} \(s.count)\n"
        out += "gatehouse_http_request_duration_seconds_sum \(s.sum)\ngatehouse_http_request_duration_seconds_count \(s.count)\n"
        for g in gauges.withLock({ $0 }) {
            out += "# HELP \(g.name) \(g.help)\n# TYPE \(g.name) gauge\n\(g.name) \(g.read())\n"
        }
        for c in counters.withLock({ $0 }) {
            out += "# HELP \(c.name) \(c.help)\n# TYPE \(c.name) counter\n"
            for (values, n) in c.read().sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                let labels = zip(c.labels, values).map { "\($0)=\"\(Self.escape($1))\"" }.joined(separator: ",")
                out += "\(c.name){\(labels)} \(n)\n"
            }
        }
        return out
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
