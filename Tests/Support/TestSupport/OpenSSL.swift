import Foundation
import Glibc

/// A failure of a test helper (a command that failed, a file that cannot be read), saying what.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// Runs the `openssl` command-line tool in `directory` with `input` on its standard input (none: `/dev/null`),
/// returning standard output; throws with standard error when it exits non-zero. The one way the tests run openssl.
///
/// Spawned with `posix_spawnp` rather than Foundation's `Process`, whose `run()` leaks a weak-reference side table
/// that LeakSanitizer reports (`swift test --sanitize=address` would then fail for a reason outside our code).
@discardableResult
public func openssl(_ arguments: [String], in directory: String, input: [UInt8]? = nil) throws -> [UInt8] {
    let capture = directory + "/.openssl-\(UUID().uuidString)"
    let outputPath = capture + ".out"
    let errorPath = capture + ".err"
    let inputPath = capture + ".in"
    defer {
        unlink(outputPath)
        unlink(errorPath)
        unlink(inputPath)
    }
    if let input { try writeBytes(input, to: inputPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, input == nil ? "/dev/null" : inputPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

    // posix_spawn_file_actions_addchdir_np does not import, so a shell changes directory and execs openssl.
    let command = ["sh", "-c", "cd \"$0\" && exec openssl \"$@\"", directory] + arguments
    let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/local/bin:/usr/bin:/bin"), nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
    guard spawned == 0 else {
        throw TestSupportError(description: "cannot run sh: \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { throw TestSupportError(description: "waitpid failed: \(errno)") }
    }
    // WIFEXITED && WEXITSTATUS == 0, spelled out (the macros do not import).
    guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
        throw TestSupportError(description: "openssl \(arguments.joined(separator: " ")) failed (status \(status)): "
            + ((try? readText(errorPath)) ?? ""))
    }
    return try readBytes(outputPath)
}

/// Reads a file as bytes (POSIX reads: Foundation's `Data(contentsOf:)` leaks its buffer for an empty file,
/// which LeakSanitizer reports).
public func readBytes(_ path: String) throws -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw TestSupportError(description: "cannot open \(path): errno \(errno)") }
    defer { close(descriptor) }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { throw TestSupportError(description: "cannot read \(path): errno \(errno)") }
        if count == 0 { return contents }
        contents += chunk[0..<count]
    }
}

/// Reads a file as UTF-8 text.
public func readText(_ path: String) throws -> String {
    String(decoding: try readBytes(path), as: UTF8.self)
}

/// Writes bytes to a new or truncated file (mode 0644 before umask).
public func writeBytes(_ bytes: [UInt8], to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw TestSupportError(description: "cannot create \(path): errno \(errno)") }
    defer { close(descriptor) }
    var offset = 0
    while offset < bytes.count {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { throw TestSupportError(description: "cannot write \(path): errno \(errno)") }
        offset += count
    }
}
