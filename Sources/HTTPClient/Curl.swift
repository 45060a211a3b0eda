import CCurl

/// Process-wide libcurl set-up and the mapping of its result codes to ``HTTPClientError``.
enum Curl {
    /// `curl_global_init`, run once per process on first use (Swift runs a global's initializer exactly once, thread-safely).
    private static let initialized: Bool = curl_global_init(gatehouse_curl_global_default()) == CURLE_OK

    /// Initializes libcurl if not done yet.
    ///
    /// - Throws: ``HTTPClientError/invalidConfiguration(_:)`` when `curl_global_init` failed.
    static func initialize() throws(HTTPClientError) {
        guard initialized else { throw .invalidConfiguration("libcurl failed to initialize") }
    }

    /// The error for a failed transfer; `message` is libcurl's text, `overflowed` whether our callbacks refused bytes.
    static func error(for code: CURLcode, message: String, overflowed: Bool, limit: Int) -> HTTPClientError {
        if overflowed || code == CURLE_FILESIZE_EXCEEDED { return .responseTooLarge(limit: limit) }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            return .certificateRejected(message)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR,
             CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SSL_CONNECT_ERROR, CURLE_PARTIAL_FILE, CURLE_HTTP2,
             CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_WEIRD_SERVER_REPLY:
            return .unreachable(message)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidRequest(message)
        default:
            return .transferFailed(message)
        }
    }
}
