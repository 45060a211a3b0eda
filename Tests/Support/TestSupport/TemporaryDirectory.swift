import Foundation

/// A fresh directory under the system temporary directory for one test, removed with everything in it when the
/// value goes away (or earlier, by ``remove()``). The one temporary folder of the test targets.
public final class TemporaryDirectory: Sendable {
    /// Its path.
    public let path: String

    /// Creates the directory, named after `prefix` and a UUID.
    /// - Throws: when it cannot be created.
    public init(_ prefix: String = "gatehouse-test") throws {
        path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        remove()
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Writes `text` to `relativePath` inside the directory, creating the folders on its way.
    /// - Throws: when it cannot be written.
    public func write(_ relativePath: String, _ text: String) throws {
        let url = URL(fileURLWithPath: file(relativePath))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Removes the directory now.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
