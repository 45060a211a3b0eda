import CCurl

/// A `curl_slist` of lines (request headers, `CURLOPT_RESOLVE` entries), freed in deinit; its pointer is lent only for a
/// closure's duration.
struct HeaderList: ~Copyable {
    private let list: UnsafeMutablePointer<curl_slist>?

    /// Builds `Name: value` lines (validated beforehand by ``OutboundRequest``).
    ///
    /// - Throws: ``HTTPClientError/transferFailed(_:)`` when libcurl cannot allocate the list.
    init(_ lines: [String]) throws(HTTPClientError) {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw .transferFailed("cannot allocate the request headers")
            }
            list = longer
        }
        self.list = list
    }

    deinit {
        curl_slist_free_all(list)
    }

    /// Runs `body` with the list's pointer, which must not be kept past it (reset `CURLOPT_HTTPHEADER` inside).
    func withList<R>(_ body: (UnsafeMutablePointer<curl_slist>?) -> R) -> R {
        body(list)
    }
}
