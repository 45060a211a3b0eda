/// What one call receives, filled by libcurl's callbacks on the calling thread while `curl_easy_perform` runs.
///
/// Handed to libcurl as an unretained pointer (`CURLOPT_WRITEDATA`, `CURLOPT_HEADERDATA`) that lives only for the
/// call: ``HTTPClient`` keeps the object alive around the transfer and resets the options before it returns.
final class Transfer {
    /// The most header bytes a response may have (all header lines of all its interim responses together).
    static let headerLimit = 64 * 1024

    private let bodyLimit: Int
    private(set) var body: [UInt8] = []
    private(set) var headers: [(name: String, value: String)] = []
    private var headerBytes = 0
    /// Whether a callback refused bytes beyond a limit (libcurl then reports `CURLE_WRITE_ERROR`).
    private(set) var overflowed = false

    /// A transfer that accepts at most `bodyLimit` bytes of body and ``headerLimit`` of headers.
    init(bodyLimit: Int) {
        self.bodyLimit = bodyLimit
    }

    /// Appends body bytes; false when they would pass the limit.
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= bodyLimit else {
            overflowed = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Takes one header line as libcurl delivers it (with its CRLF). A status line starts a new response (after a
    /// `100 Continue`, say), so it drops the headers gathered so far.
    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= Self.headerLimit else {
            overflowed = true
            return false
        }
        var line = Array(bytes)
        while let last = line.last, last == 0x0D || last == 0x0A { line.removeLast() }
        if line.starts(with: Array("HTTP/".utf8)) {
            headers.removeAll()
            return true
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return true }
        let name = String(decoding: line[..<colon], as: UTF8.self)
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces()
        headers.append((name: name, value: value))
        return true
    }
}

/// `CURLOPT_WRITEFUNCTION`: returning fewer bytes than given makes libcurl stop with `CURLE_WRITE_ERROR`.
func receiveBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let (transfer, bytes) = callbackChunk(data, size, count, context) else { return 0 }
    return transfer.appendBody(bytes) ? bytes.count : 0
}

/// `CURLOPT_HEADERFUNCTION`: one whole header line per call.
func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let (transfer, bytes) = callbackChunk(data, size, count, context) else { return 0 }
    return transfer.appendHeaderLine(bytes) ? bytes.count : 0
}

/// The transfer a libcurl data callback is for and the bytes it was given (valid until the callback returns); nil
/// for a call without a context or whose size overflows.
private func callbackChunk(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                           _ context: UnsafeMutableRawPointer?) -> (Transfer, UnsafeRawBufferPointer)? {
    guard let context else { return nil }
    let (length, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow else { return nil }
    return (Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue(), UnsafeRawBufferPointer(start: data, count: length))
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP's optional white space).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
