import HTTP

extension Response {
    /// An `application/problem+json` response (RFC 9457): `{"type":"about:blank","title":…,"status":…}` plus an
    /// optional client-safe `detail` and the request id.
    public static func problem(status: Int, detail: String? = nil, requestID: String? = nil) -> Response {
        var json = "{\"type\":\"about:blank\",\"title\":"
        LogValue.string(ResponseSerializer.reasonPhrase(status)).appendJSON(to: &json)
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
