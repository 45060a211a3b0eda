import Foundation

/// A command run to completion, for the tests of a command-line tool (`gatehouse app-attest …`, `gatehouse admin …`):
/// how it exited and what it printed. Foundation's `Process`, so not for runs under AddressSanitizer (see
/// ``ChildProcess``).
public struct CommandRun: Sendable {
    /// The exit status (a terminated run's signal status when it outlived its timeout).
    public var status: Int32
    /// Standard output.
    public var output: [UInt8]
    /// Standard error, as text.
    public var error: String

    /// Standard output, as text.
    public var outputText: String { String(decoding: output, as: UTF8.self) }

    /// Runs `executable` with `arguments` and `input` on its standard input, in `directory` (this process's when nil)
    /// with `environment` (this process's when nil), and waits for it to exit; terminates it after `timeout` seconds.
    /// Its output is read once it has exited, so it must print less than a pipe holds (64 KiB).
    public init(_ executable: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil,
                directory: String? = nil, timeout: TimeInterval = 30) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.environment = environment ?? ChildProcess.scrubbedEnvironment
        let out = Pipe(), err = Pipe(), inp = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inp
        try process.run()
        inp.fileHandleForWriting.write(Data(input))
        try inp.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        status = process.terminationStatus
        output = Array(out.fileHandleForReading.readDataToEndOfFile())
        error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// The `gatehouse` executable of this build: beside the test bundle (same configuration and scratch path), else in
    /// the repository's `.build/debug`.
    public static func gatehouse() throws -> String {
        var candidates: [String] = []
        if let runner = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var directory = URL(fileURLWithPath: runner).deletingLastPathComponent()
            // On Linux the bundle is a plain executable in the build folder; elsewhere it may sit inside `X.xctest/...`.
            while directory.path.contains(".xctest") { directory.deleteLastPathComponent() }
            candidates.append(directory.appendingPathComponent("gatehouse").path)
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CommandRunError(description: "no gatehouse binary beside the test runner (\(candidates)): build it with `swift build --build-tests`")
        }
        return found
    }
}

/// Why a command could not be run.
public struct CommandRunError: Error, CustomStringConvertible {
    /// What is missing, and how to get it.
    public let description: String
}
