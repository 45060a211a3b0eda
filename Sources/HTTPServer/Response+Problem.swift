import HTTP

extension Response {
    /// An `application/problem+json` response (RFC 9457): `{"type":"about:blank","title":…,"status":…}` plus an
    /// optional client-safe `detail` and the request id.
    public static func problem(status: Int, detail: String? = nil, requestID: String? = nil) -> Response {
        var json = Array("{\"type\":\"about:blank\",\"title\":".utf8)
        LogValue.string(ResponseSerializer.reasonPhrase(status)).appendJSON(to: &json)
        json += Array(",\"status\":\(status)".utf8)
        if let detail {
            json += Array(",\"detail\":".utf8)
            LogValue.string(detail).appendJSON(to: &json)
        }
        if let requestID, !requestID.isEmpty {
            json += Array(",\"requestId\":".utf8)
            LogValue.string(requestID).appendJSON(to: &json)
        }
        json.append(UInt8(ascii: "}"))
        return Response(status: status, headers: ["Content-Type": "application/problem+json"], body: json)
    }
}
