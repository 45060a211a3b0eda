import ChildProcess
import Foundation

/// Runs the `openssl` command-line tool for test fixtures (certificates), in a working directory.
struct OpenSSLTool {
    let directory: String

    /// Why a run of `openssl` failed: its arguments, exit status and standard error.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `openssl arguments…` in `directory`; throws when it does not exit 0.
    func run(_ arguments: [String]) throws {
        let errorPath = directory + "/openssl.err"
        let process = try ChildProcess("/usr/bin/env", ["openssl"] + arguments.map { path($0) }, standardErrorPath: errorPath)
        let (code, _) = process.finish(timeout: 60)
        guard code == 0 else {
            let message = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) exited \(code.map(String.init) ?? "?"): \(message)")
        }
    }

    /// Arguments naming files of the working directory are written `@name` and become absolute paths.
    private func path(_ argument: String) -> String {
        argument.hasPrefix("@") ? directory + "/" + argument.dropFirst() : argument
    }

    func write(_ text: String, to name: String) throws {
        try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
    }
}
