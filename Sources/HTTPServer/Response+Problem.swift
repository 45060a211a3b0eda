import HTTP

extension Response {
    /// An `application/problem+json` response (RFC 9457): `{"type":"about:blank","title":…,"status":…}` plus an
    /// optional client-safe `detail` and the request id.
    public static func problem(status: Int, detail: String? = nil, requestID: String? = nil) -> Response {
        var json = "{\"type\":\"about:blank\",\"title\":"
        LogValue.string(StatusTitle.title(for: status)).appendJSON(to: &json)
        json += ",\"status\":" + String(status)
        if let detail {
            json += ",\"detail\":"
            LogValue.string(detail).appendJSON(to: &json)
        }
        if let requestID, !requestID.isEmpty {
            json += ",\"requestId\":"
            LogValue.string(requestID).appendJSON(to: &json)
        }
        json += "}"
        return Response(status: status, contentType: "application/problem+json", body: json)
    }
}

/// Titles for the problem documents the server itself produces (RFC 9110 §15 reason phrases).
enum StatusTitle {
    static func title(for status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: status >= 500 ? "Server Error" : "Client Error"
        }
    }
}
