/// Common methods and field names as string literals: a literal costs nothing to make, while building a String
/// from bytes validates and copies them. Matching is exact (byte for byte), so the request keeps the client's case.
extension RequestParser {
    /// The method of `bytes` (already checked to be a token).
    static func methodString(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence) -> String {
        switch bytes.count {
        case 3:
            if same(bytes, "GET") { return "GET" }
            if same(bytes, "PUT") { return "PUT" }
        case 4:
            if same(bytes, "POST") { return "POST" }
            if same(bytes, "HEAD") { return "HEAD" }
        case 5: if same(bytes, "PATCH") { return "PATCH" }
        case 6: if same(bytes, "DELETE") { return "DELETE" }
        case 7: if same(bytes, "OPTIONS") { return "OPTIONS" }
        default: break
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The field name of `bytes` (already checked to be a token).
    static func nameString(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence) -> String {
        switch bytes.count {
        case 4: if same(bytes, "Host") { return "Host" }
        case 6:
            if same(bytes, "Accept") { return "Accept" }
            if same(bytes, "Cookie") { return "Cookie" }
            if same(bytes, "Origin") { return "Origin" }
        case 10:
            if same(bytes, "User-Agent") { return "User-Agent" }
            if same(bytes, "Connection") { return "Connection" }
        case 12: if same(bytes, "Content-Type") { return "Content-Type" }
        case 13: if same(bytes, "Authorization") { return "Authorization" }
        case 14: if same(bytes, "Content-Length") { return "Content-Length" }
        case 15:
            if same(bytes, "Accept-Encoding") { return "Accept-Encoding" }
            if same(bytes, "Accept-Language") { return "Accept-Language" }
        default: break
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @inline(__always)
    private static func same(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { l in
            var i = bytes.startIndex
            for b in l {
                if b != bytes[i] { return false }
                i += 1
            }
            return true
        }
    }
}
