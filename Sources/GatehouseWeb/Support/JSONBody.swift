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
        let json: JSON
        do {
            json = try JSONParser.parse(request.body)
        } catch {
            throw Problem.malformedJSON(error)
        }
        if mayHoldNUL(request.body), let pointer = nulPointer(json, at: "") {
            throw Problem.badRequest([FieldError(pointer, "must not contain the character U+0000 (NUL), which cannot be stored")])
        }
        return json
    }

    /// Whether the JSON text `body` may hold U+0000 in a string or member name: JSON writes control characters only as
    /// escapes, so a NUL can come only from `\u0000` (the parser refuses a raw one). Most bodies have none, and skip
    /// ``nulPointer(_:at:)``'s walk over every string.
    static func mayHoldNUL(_ body: [UInt8]) -> Bool {
        body.withUnsafeBufferPointer { bytes in
            var index = 0
            while index + escape.count <= bytes.count {
                guard let backslash = bytes[index...].firstIndex(of: escape[0]) else { return false }
                if backslash + escape.count <= bytes.count, bytes[backslash..<(backslash + escape.count)].elementsEqual(escape) { return true }
                index = backslash + 1
            }
            return false
        }
    }

    /// The escape of U+0000 in JSON text.
    private static let escape: [UInt8] = Array(#"\u0000"#.utf8)

    /// The pointer of the first string (or member name) holding U+0000, which PostgreSQL cannot store (and which no
    /// field of Gatehouse's means); nil when there is none.
    static func nulPointer(_ json: JSON, at pointer: String) -> String? {
        switch json {
        case .string(let text):
            return text.utf8.contains(0) ? pointer : nil
        case .array(let items):
            for (i, item) in items.enumerated() {
                if let found = nulPointer(item, at: Pointer.join(pointer, i)) { return found }
            }
            return nil
        case .object(let members):
            for member in members {
                let path = Pointer.join(pointer, member.key)
                if member.key.utf8.contains(0) { return path }
                if let found = nulPointer(member.value, at: path) { return found }
            }
            return nil
        case .null, .bool, .number:
            return nil
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
