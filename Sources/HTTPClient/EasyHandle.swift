import CCurl

/// One libcurl easy handle and its error buffer. The handle keeps its connections (and TLS sessions) open between
/// calls, so handing the same handle to the next call reuses them.
///
/// `@unchecked Sendable`: libcurl allows a handle on one thread at a time, and ``HandlePool`` gives each handle to
/// exactly one caller between `take` and `give`.
final class EasyHandle: @unchecked Sendable {
    /// The `CURL *`.
    let raw: UnsafeMutableRawPointer
    /// `CURL_ERROR_SIZE` bytes for `CURLOPT_ERRORBUFFER`, owned here and freed in deinit.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let errorBufferSize: Int

    /// A new handle, or nil when libcurl cannot allocate one.
    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        errorBufferSize = gatehouse_curl_error_size()
        errorBuffer = .allocate(capacity: errorBufferSize)
        errorBuffer.initialize(repeating: 0, count: errorBufferSize)
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deinitialize(count: errorBufferSize)
        errorBuffer.deallocate()
    }

    /// Points `CURLOPT_ERRORBUFFER` at this handle's buffer, emptied (reset with the other options after a call).
    func attachErrorBuffer() -> CURLcode {
        errorBuffer[0] = 0
        return gatehouse_curl_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    /// libcurl's detailed message for the last failure (e.g. "SSL: no alternative certificate subject name matches
    /// target host name"), or its generic text for `code` when the buffer is empty.
    func message(for code: CURLcode) -> String {
        let detailed = Array(UnsafeBufferPointer(start: errorBuffer, count: errorBufferSize).prefix { $0 != 0 })
        if !detailed.isEmpty {
            let text = String(decoding: detailed.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return text.hasSuffix("\n") ? String(text.dropLast()) : text
        }
        guard let generic = curl_easy_strerror(code) else { return "libcurl error \(code.rawValue)" }
        return String(cString: generic)
    }

    /// A long-valued `CURLINFO_*` of the last call, or nil when libcurl does not have it.
    func info(_ info: CURLINFO) -> Int? {
        var value = 0
        return gatehouse_curl_getinfo_long(raw, info, &value) == CURLE_OK ? value : nil
    }
}
