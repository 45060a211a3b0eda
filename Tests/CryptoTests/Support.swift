import Crypto
import Foundation
import TestSupport

/// Bytes from hex written in a test (spaces allowed for readability); throws on a typo.
func hex(_ text: String) throws -> [UInt8] {
    let compact = text.filter { !$0.isWhitespace }
    guard let bytes = Hex.decode(compact) else { throw TestSupportError(description: "bad hex in test: \(text)") }
    return bytes
}

/// Collects results from concurrent threads.
final class Results: @unchecked Sendable {
    // @unchecked Sendable: `storage` is only touched with `lock` held.
    private let lock = NSLock()
    private var storage: [[UInt8]?] = []

    func append(_ value: [UInt8]?) {
        lock.lock()
        storage.append(value)
        lock.unlock()
    }

    var values: [[UInt8]?] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
