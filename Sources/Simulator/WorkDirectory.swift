import Foundation

/// A fresh temporary directory for one batch of `openssl` runs; the caller removes it (`defer { work.remove() }`).
struct WorkDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "gatehouse-appattest-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    var tool: OpenSSLTool { OpenSSLTool(directory: path) }
}
