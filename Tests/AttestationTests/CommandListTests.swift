import ChildProcess
import Foundation
import Testing
import TestSupport

/// One list of commands: what `gatehouse --help` prints is the README's "Commands" block, line for line, so neither
/// omits a command the other shows.
struct CommandListTests {
    @Test func helpAndTheReadmeListTheSameCommands() throws {
        let help = try CommandRun(try CommandRun.gatehouse(), ["--help"])
        #expect(help.status == 0)
        let listed = help.outputText.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("Usage:") }.dropFirst().prefix { !$0.isEmpty }
            .map { String($0.dropFirst(2)) }
        #expect(listed.count >= 10)
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "## Commands\n\n```\n"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let block = readme[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
        #expect(block == listed)
        for command in ["serve", "migrate", "admin create", "token create", "backup", "caches reset", "receipts rotate-key",
                        "app-attest verify-attestation|verify-assertion|verify-receipt", "play-integrity decode", "key-attestation verify", "simulate"] {
            #expect(listed.contains { $0.hasPrefix("gatehouse " + command) }, "\(command)")
        }
    }
}
