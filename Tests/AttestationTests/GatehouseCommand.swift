import Foundation
import Testing

/// The `gatehouse` executable of this build, run as an operator runs it, for the command-line tests of its
/// subcommands (`app-attest`, `play-integrity`).
enum GatehouseCommand {
    /// What one run gave: the exit status, standard output and standard error.
    struct Result {
        var status: Int32
        var output: [UInt8]
        var error: String
    }

    /// The `gatehouse` executable beside the test bundle.
    static func executable() throws -> String {
        let runner = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var directory = URL(fileURLWithPath: runner).deletingLastPathComponent()
        while directory.path.contains(".xctest") { directory.deleteLastPathComponent() }
        let path = directory.appendingPathComponent("gatehouse").path
        try #require(FileManager.default.isExecutableFile(atPath: path), "no gatehouse at \(path): run `swift build --build-tests`")
        return path
    }

    /// Runs `gatehouse` with `arguments`, `input` on its standard input, and waits for it to exit.
    static func run(_ arguments: [String], input: [UInt8] = []) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable())
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), inp = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inp
        try process.run()
        inp.fileHandleForWriting.write(Data(input))
        try inp.fileHandleForWriting.close()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: Array(output), error: String(decoding: error, as: UTF8.self))
    }

    /// A new file under the temporary directory holding `bytes`; returns its path.
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "gatehouse-cli-" + UUID().uuidString
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
