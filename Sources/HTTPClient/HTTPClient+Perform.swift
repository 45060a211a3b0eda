import Locks
import CCurl

extension HTTPClient {
    /// Runs one transfer on `handle` and resets the handle's options before returning, so that no pointer lent to
    /// libcurl (the header and resolve lists, the callbacks' context, the body) outlives the call.
    func perform(_ request: OutboundRequest, on handle: EasyHandle) throws(HTTPClientError) -> OutboundResponse {
        var lines = request.headers.map { "\($0.name): \($0.value)" }
        lines.append("Expect:")  // no `100 Continue` round trip before a body
        let headerList = try HeaderList(lines)
        let resolveList = try HeaderList(request.pinned.map { pin in
            ["\(pin.host):\(pin.port):" + (pin.address.isIPv6 ? "[\(pin.address)]" : "\(pin.address)")]
        } ?? [])
        let transfer = Transfer(bodyLimit: configuration.maxResponseBytes)
        let limit = configuration.maxResponseBytes
        let outcome: Result<OutboundResponse, HTTPClientError> = headerList.withList { list in resolveList.withList { resolve in
            withExtendedLifetime(transfer) {
                defer { curl_easy_reset(handle.raw) }
                let context = Unmanaged.passUnretained(transfer).toOpaque()
                if let failure = configure(handle, for: request, headers: list, context: context) {
                    return .failure(failure)
                }
                if request.pinned != nil {
                    let pinning = [gatehouse_curl_setopt_pointer(handle.raw, CURLOPT_RESOLVE, resolve),
                                   gatehouse_curl_setopt_long(handle.raw, CURLOPT_FRESH_CONNECT, 1),
                                   gatehouse_curl_setopt_long(handle.raw, CURLOPT_FORBID_REUSE, 1)]
                    if let failed = pinning.first(where: { $0 != CURLE_OK }) {
                        return .failure(.transferFailed("libcurl refused an option: \(handle.message(for: failed))"))
                    }
                }
                let code = curl_easy_perform(handle.raw)
                guard code == CURLE_OK else {
                    let message = handle.message(for: code)
                    return .failure(Curl.error(for: code, message: message, overflowed: transfer.overflowed, limit: limit))
                }
                guard let status = handle.info(CURLINFO_RESPONSE_CODE), status > 0 else {
                    return .failure(.unreachable("no HTTP status received"))
                }
                let connects = handle.info(CURLINFO_NUM_CONNECTS) ?? 1
                return .success(OutboundResponse(status: status, headers: transfer.headers, body: transfer.body,
                                                 reusedConnection: connects == 0))
            }
        } }
        return try outcome.get()
    }

    /// Sets every option of one call; nil when all took, else the error.
    private func configure(_ handle: EasyHandle, for request: OutboundRequest, headers: UnsafeMutablePointer<curl_slist>?,
                           context: UnsafeMutableRawPointer) -> HTTPClientError? {
        let raw = handle.raw
        let total = request.timeout ?? configuration.totalTimeout
        let connect = min(configuration.connectTimeout, total)
        var codes: [CURLcode] = [
            gatehouse_curl_setopt_string(raw, CURLOPT_URL, request.url),
            gatehouse_curl_setopt_string(raw, CURLOPT_PROTOCOLS_STR, configuration.allowsPlainHTTP ? "http,https" : "https"),
            gatehouse_curl_setopt_long(raw, CURLOPT_FOLLOWLOCATION, 0),
            gatehouse_curl_setopt_long(raw, CURLOPT_NOSIGNAL, 1),
            gatehouse_curl_setopt_long(raw, CURLOPT_SSL_VERIFYPEER, 1),
            gatehouse_curl_setopt_long(raw, CURLOPT_SSL_VERIFYHOST, 2),
            gatehouse_curl_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, connect.milliseconds(roundingUp: true)),
            gatehouse_curl_setopt_long(raw, CURLOPT_TIMEOUT_MS, max(1, total.milliseconds(roundingUp: true))),
            gatehouse_curl_setopt_off(raw, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxResponseBytes)),
            gatehouse_curl_setopt_string(raw, CURLOPT_USERAGENT, configuration.userAgent),
            handle.attachErrorBuffer(),
            gatehouse_curl_setopt_callback(raw, CURLOPT_WRITEFUNCTION, receiveBody),
            gatehouse_curl_setopt_pointer(raw, CURLOPT_WRITEDATA, context),
            gatehouse_curl_setopt_callback(raw, CURLOPT_HEADERFUNCTION, receiveHeader),
            gatehouse_curl_setopt_pointer(raw, CURLOPT_HEADERDATA, context),
            gatehouse_curl_setopt_pointer(raw, CURLOPT_HTTPHEADER, headers),
        ]
        if let caFile = configuration.caFile {
            // Only this file: no system directory of certificates beside it.
            codes.append(gatehouse_curl_setopt_string(raw, CURLOPT_CAINFO, caFile))
            codes.append(gatehouse_curl_setopt_string(raw, CURLOPT_CAPATH, nil))
        }
        codes += setMethod(raw, request)
        guard let failed = codes.first(where: { $0 != CURLE_OK }) else { return nil }
        return .transferFailed("libcurl refused an option: \(handle.message(for: failed))")
    }

    /// Sets the method and, when there is one, the body (copied by libcurl: `CURLOPT_COPYPOSTFIELDS`).
    private func setMethod(_ raw: UnsafeMutableRawPointer, _ request: OutboundRequest) -> [CURLcode] {
        var codes: [CURLcode] = []
        switch request.method {
        case .get:
            codes.append(gatehouse_curl_setopt_long(raw, CURLOPT_HTTPGET, 1))
        case .post:
            codes.append(gatehouse_curl_setopt_long(raw, CURLOPT_POST, 1))
        case .put, .patch, .delete:
            codes.append(gatehouse_curl_setopt_string(raw, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
        }
        if request.method == .post || !request.body.isEmpty {
            codes.append(gatehouse_curl_setopt_off(raw, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            var body = request.body
            body.append(0)  // never an empty buffer (a nil pointer); the size above excludes this byte
            codes.append(body.withUnsafeMutableBytes { gatehouse_curl_setopt_pointer(raw, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) })
        }
        return codes
    }
}
