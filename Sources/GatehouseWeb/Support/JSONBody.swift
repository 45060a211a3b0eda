import Foundation
import Gatehouse
import HTTP
import JSON

/// Reading JSON request bodies and writing JSON responses for the management API.
public enum JSONBody {
    /// The body as JSON. `allowMergePatch` also accepts `application/merge-patch+json` (RFC 7396).
    /// Throws a 415 problem for another content type and a 400 one naming the byte offset for malformed JSON.
    public static func read(_ request: Request, allowMergePatch: Bool = false) throws -> JSON {
        let type = mediaType(request)
        let accepted = allowMergePatch ? ["application/json", "application/merge-patch+json"] : ["application/json"]
        guard accepted.contains(type) else {
            var p = Problem(status: 415, slug: "unsupported-media-type", title: "Unsupported media type",
                            detail: "Send the body as \(accepted.joined(separator: " or ")); got \(type.isEmpty ? "no Content-Type" : type).")
            p.headers.set(allowMergePatch ? "Accept-Patch" : "Accept", accepted.joined(separator: ", "))
            throw p
        }
        do {
            return try JSONParser.parse(request.body)
        } catch {
            throw Problem.malformedJSON(error)
        }
    }

    /// The request's media type, lowercased without parameters; empty without a Content-Type.
    public static func mediaType(_ request: Request) -> String {
        // Optional whitespace is spaces and tabs (RFC 9110 §5.6.3); trimmed without Foundation's character sets,
        // which cost more than the rest of a small device request's parsing.
        let value = (request.headers["Content-Type"] ?? "").utf8
        let type = value.prefix { $0 != UInt8(ascii: ";") }
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let start = type.firstIndex(where: { !isSpace($0) }), let end = type.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: type[start...end], as: UTF8.self).lowercased()
    }

    /// A JSON response.
    public static func response(_ json: JSON, status: Int = 200, headers: Headers = Headers()) -> Response {
        var headers = headers
        headers.set("Content-Type", "application/json")
        return Response(status: status, headers: headers, body: json.serialized())
    }
}
