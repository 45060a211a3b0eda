import Crypto
import Foundation

/// A test failure raised by the helpers below.
struct TestSupportError: Error, CustomStringConvertible {
    let description: String
}

/// Bytes from hex written in a test (spaces allowed for readability); throws on a typo.
func hex(_ text: String) throws -> [UInt8] {
    let compact = text.filter { !$0.isWhitespace }
    guard let bytes = Hex.decode(compact) else { throw TestSupportError(description: "bad hex in test: \(text)") }
    return bytes
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "gatehouse-crypto-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs the `openssl` command-line tool in `directory`, returning standard output; throws with standard error
/// when it exits non-zero.
@discardableResult
func openssl(_ arguments: [String], in directory: String) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl"] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read standard error on the side so neither pipe can fill up and block the tool.
    let errorData = ErrorCollector(errors.fileHandleForReading)
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw TestSupportError(description: "openssl \(arguments.joined(separator: " ")) failed: "
            + String(decoding: errorData.finish(), as: UTF8.self))
    }
    return [UInt8](outputData)
}

/// Drains a pipe on a background thread.
private final class ErrorCollector: @unchecked Sendable {
    // @unchecked Sendable: `data` is written only by the reading thread and read only after `done` is signalled.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func finish() -> Data {
        done.wait()
        return data
    }
}

/// Reads a file as bytes.
func readBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Reads a file as UTF-8 text.
func readText(_ path: String) throws -> String {
    String(decoding: try readBytes(path), as: UTF8.self)
}

/// Writes bytes to a file.
func writeBytes(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}
