import Crypto
import Foundation
import TestSupport

/// Bytes from hex written in a test (spaces allowed for readability); throws on a typo.
func hex(_ text: String) throws -> [UInt8] {
    let compact = text.filter { !$0.isWhitespace }
    guard let bytes = Hex.decode(compact) else { throw TestSupportError(description: "bad hex in test: \(text)") }
    return bytes
}
