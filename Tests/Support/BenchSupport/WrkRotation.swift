import Foundation

/// The request bodies of a bench, one a line, and the wrk script that sends them: each of wrk's two threads loads
/// every other line and sends its lines in turn as JSON POSTs (with `Authorization: Bearer $BENCH_SECRET` when that
/// variable is set), tallies the answers, and prints the tallies at the end (`verified: 10, other: 0`). The first
/// answer a thread counts as `other` goes to standard error, to say why.
public struct WrkRotation {
    /// A tally of answers: its name (a Lua identifier, printed in the summary) and the texts a 200 answer's body
    /// contains (any of them) to count in it. The tallies are tried in order; an answer in none counts as `other`.
    public struct Tally {
        public let name: String
        public let bodyContains: [String]

        /// A tally named `name` of the 200 answers whose body contains any of `bodyContains` (no `'` or `\`).
        public init(_ name: String, bodyContains: [String]) {
            self.name = name
            self.bodyContains = bodyContains
        }
    }

    /// The path of the request bodies.
    public let requests: String
    public let tallies: [Tally]

    /// The rotation over the bodies in the file at `requests`, tallying answers by `tallies`.
    public init(requests: String, tallies: [Tally]) {
        self.requests = requests
        self.tallies = tallies
    }

    /// Writes `lines` (one request body each) to ``requests`` and the script to `script`.
    /// - Throws: the file system's errors.
    public func write(_ lines: some Sequence<String>, script: String) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: requests))
        try Data(self.script.utf8).write(to: URL(fileURLWithPath: script))
    }

    /// The wrk (Lua) script.
    public var script: String {
        let names = tallies.map(\.name) + ["other"]
        let branches = tallies.enumerated().map { index, tally in
            let found = tally.bodyContains.map { "string.find(body, '\($0)', 1, true)" }.joined(separator: " or ")
            return "  \(index == 0 ? "if" : "elseif") status == 200 and (\(found)) then \(tally.name) = \(tally.name) + 1"
        }
        return """
            local threads = {}
            local counter = 0
            function setup(thread)
              thread:set("id", counter)
              counter = counter + 1
              table.insert(threads, thread)
            end
            function init(args)
              bodies = {}
              local i = 0
              for line in io.lines("\(requests)") do
                if i % 2 == id then table.insert(bodies, line) end
                i = i + 1
              end
              n = 0
            \(names.map { "  \($0) = 0" }.joined(separator: "\n"))
              wrk.method = "POST"
              wrk.headers["Content-Type"] = "application/json"
              if os.getenv("BENCH_SECRET") then wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_SECRET") end
              -- Formatted once here, not per request: the load generator shares the machine's cores with the server.
              for k = 1, #bodies do bodies[k] = wrk.format(nil, nil, nil, bodies[k]) end
            end
            function request()
              n = n + 1
              return bodies[((n - 1) % #bodies) + 1]
            end
            function response(status, headers, body)
            \(branches.joined(separator: "\n"))
              else
                other = other + 1
                if other == 1 then io.stderr:write(status .. " " .. body .. "\\n") end
              end
            end
            function done(summary, latency, requests)
              local \(names.joined(separator: ", ")) = \(names.map { _ in "0" }.joined(separator: ", "))
              for _, t in ipairs(threads) do \(names.map { "\($0) = \($0) + t:get(\"\($0)\")" }.joined(separator: "; ")) end
              io.write(string.format("\(names.map { "\($0): %d" }.joined(separator: ", "))\\n", \(names.joined(separator: ", "))))
            end
            """
    }
}
