import Foundation

/// Runs the `openssl` command-line tool in a working directory, for the synthetic App Attest CA (certificates with
/// the nonce extension, which the Crypto module does not issue).
struct OpenSSLTool {
    let directory: String

    /// Why a run of `openssl` failed: its arguments, exit status and standard error.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `openssl arguments…` in `directory`; throws when it does not exit 0.
    func run(_ arguments: [String]) throws {
        let errorPath = directory + "/openssl.err"
        guard FileManager.default.createFile(atPath: errorPath, contents: nil) else {
            throw Failure(description: "cannot create \(errorPath)")
        }
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? errors.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments.map { path($0) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let message = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(message)")
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
