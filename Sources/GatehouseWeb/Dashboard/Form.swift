import Foundation
import HTTP
import HTTPServer

/// A submitted HTML form: `application/x-www-form-urlencoded` fields, or `multipart/form-data` fields and files
/// (RFC 7578). Repeated names keep their first value.
struct Form: Sendable {
    var fields: [String: String] = [:]
    /// Uploaded files by field name: their bytes (only non-empty uploads are kept).
    var files: [String: [UInt8]] = [:]

    subscript(_ name: String) -> String? { fields[name] }

    /// Reads the request's form body; throws a 415 for another content type and a 400 for a malformed body.
    static func read(_ request: Request) throws -> Form {
        let contentType = request.headers["Content-Type"] ?? ""
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch type {
        case "application/x-www-form-urlencoded":
            var form = Form()
            for (name, value) in URLEncoding.parseQuery(String(decoding: request.body, as: UTF8.self)) where form.fields[name] == nil {
                form.fields[name] = value
            }
            return form
        case "multipart/form-data":
            guard let boundary = parameter("boundary", in: contentType) else {
                throw HTTPError(status: 400, detail: "multipart/form-data without a boundary")
            }
            return try multipart(request.body, boundary: boundary)
        default:
            throw HTTPError(status: 415, detail: "Send the form as application/x-www-form-urlencoded or multipart/form-data.")
        }
    }

    static func parameter(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";").dropFirst() {
            let kv = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if kv.count == 2, kv[0].lowercased() == name {
                return kv[1].hasPrefix("\"") && kv[1].hasSuffix("\"") && kv[1].count >= 2 ? String(kv[1].dropFirst().dropLast()) : kv[1]
            }
        }
        return nil
    }

    /// Splits a multipart body at `--boundary` lines; each part's headers name the field and, for files, a filename.
    static func multipart(_ body: [UInt8], boundary: String) throws -> Form {
        let delimiter = Array("--\(boundary)".utf8)
        var form = Form()
        var positions: [Int] = []
        var i = 0
        while let found = find(delimiter, in: body, from: i) {
            positions.append(found)
            i = found + delimiter.count
        }
        guard positions.count >= 2 else { throw HTTPError(status: 400, detail: "malformed multipart body") }
        for (start, end) in zip(positions, positions.dropFirst()) {
            var partStart = start + delimiter.count
            // Skip the CRLF after the delimiter line.
            if partStart + 1 < body.count, body[partStart] == 13, body[partStart + 1] == 10 { partStart += 2 }
            var partEnd = end
            if partEnd >= 2, body[partEnd - 2] == 13, body[partEnd - 1] == 10 { partEnd -= 2 }
            guard partStart <= partEnd else { continue }
            let part = Array(body[partStart..<partEnd])
            guard let split = find([13, 10, 13, 10], in: part, from: 0) else { continue }
            let head = String(decoding: part[0..<split], as: UTF8.self)
            let content = Array(part[(split + 4)...])
            var name: String?
            var isFile = false
            for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                name = parameter("name", in: String(line))
                isFile = parameter("filename", in: String(line)) != nil
            }
            guard let name else { continue }
            if isFile {
                if !content.isEmpty, form.files[name] == nil { form.files[name] = content }
            } else if form.fields[name] == nil {
                form.fields[name] = String(decoding: content, as: UTF8.self)
            }
        }
        return form
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var i = start
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == needle[0] {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
