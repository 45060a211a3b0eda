import HTTP
import SeededRandom
import Testing

/// Random event sequences against the connection's invariants (checked by `HTTP1ConnectionDriver` on every
/// action), with a seeded generator so that a failure names a sequence that replays.
@Suite("HTTP/1 connection properties")
struct HTTP1ConnectionPropertyTests {
    /// Request shapes; `#` becomes the request's number.
    static let shapes = [
        "GET /# HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /# HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "GET /# HTTP/1.0\r\n\r\n",
        "HEAD /# HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "POST /# HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
        "POST /# HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nhi",
        "POST /# HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
        "\r\nGET /# HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /# HTTP/1.1\nHost: x\r\n\r\n",
    ]

    /// The client's whole input: numbered requests, rarely a malformed one.
    static func stream(_ rng: inout SplitMix64) -> [UInt8] {
        var bytes: [UInt8] = []
        for number in 0..<Int.random(in: 1...12, using: &rng) {
            let shape = Int.random(in: 0..<100, using: &rng) < 95 ? shapes[Int.random(in: 0..<8, using: &rng)] : shapes[8]
            bytes += Array(shape.split(separator: "#", omittingEmptySubsequences: false).joined(separator: String(number)).utf8)
        }
        return bytes
    }

    /// Runs one random sequence; returns the broken invariants (empty when all held).
    static func run(seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed)
        var d = HTTP1ConnectionDriver()
        let input = stream(&rng)
        var offset = 0
        var ended = false
        for _ in 0..<Int.random(in: 1...80, using: &rng) where !d.closed {
            d.room = [Int.max, Int.max, 0, Int.random(in: 1...12, using: &rng)][Int.random(in: 0..<4, using: &rng)]
            let submittedBefore = d.submitted.count
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<45 where offset < input.count && !ended:
                let end = min(input.count, offset + Int.random(in: 1...48, using: &rng))
                d.apply(.received(Array(input[offset..<end])))
                offset = end
            case 45..<65 where d.machine.isAwaitingResponse:
                d.respond(keepAlive: Int.random(in: 0..<10, using: &rng) < 8)
            case 65..<78:
                d.apply(.writable)
            case 78..<93:
                // Mostly small steps; sometimes straight to (or past) the deadline.
                if let deadline = d.deadline, Bool.random(using: &rng) {
                    d.now = max(d.now, deadline &+ UInt64.random(in: 0...2, using: &rng))
                } else {
                    d.now &+= UInt64.random(in: 0...(3 * HTTP1ConnectionDriver.second), using: &rng)
                }
                d.apply(.tick)
            case 93..<97 where !ended:
                ended = true
                d.apply(.inputEnded)
            case 97..<98:
                d.apply(.shutdown)
            default:
                d.apply(.written(Int.random(in: 0...5, using: &rng)))  // stray: must be ignored
            }
            // A request goes to the worker only once the answers before it are fully written.
            if d.submitted.count > submittedBefore, let last = d.sent.last, last != UInt8(ascii: ";"),
               last != UInt8(ascii: "\n") {
                d.violations.append("request submitted while output was pending")
            }
        }
        // Requests come out in the order sent, none skipped or repeated.
        let expected = (0..<d.submitted.count).map { "/\($0)" }
        if d.paths != expected { d.violations.append("submitted \(d.paths)") }
        // Responses go out in request order (the last may be cut short by a close).
        let tags = d.text.split(separator: ";").dropLast(d.text.hasSuffix(";") ? 0 : 1).compactMap { $0.split(separator: "R").last.map(String.init) }
            .filter { $0.hasPrefix("/") }
        if tags != Array(expected.prefix(tags.count)) { d.violations.append("responses out of order: \(tags)") }
        // After EOF, with the workers answering and the socket draining, the connection closes.
        if !ended { d.apply(.inputEnded) }
        for _ in 0..<200 where !d.closed {
            d.room = .max
            if d.machine.isAwaitingResponse {
                d.respond()
            } else if d.interest.write {
                d.apply(.writable)
            } else {
                d.now = max(d.now, d.deadline ?? d.now)
                d.apply(.tick)
            }
        }
        if !d.closed { d.violations.append("not closed after EOF and drain") }
        return d.violations
    }

    @Test func randomEventSequencesKeepTheInvariants() {
        var failures: [(UInt64, [String])] = []
        for seed in UInt64(1)...5000 {
            let violations = Self.run(seed: seed)
            if !violations.isEmpty { failures.append((seed, violations)) }
        }
        #expect(failures.isEmpty, "first failing seeds: \(failures.prefix(3))")
    }
}
