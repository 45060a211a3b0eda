import Crypto
import Gatehouse
import HTTP
import JSON

/// A device request's JSON body, read field by field: every field that cannot be read is collected by JSON pointer
/// and answered at once as a 400 problem (docs/device-api.md: only requests that cannot be judged are refused).
struct DeviceBody {
    /// The largest body a device endpoint reads (docs/device-api.md "Keys and authentication").
    static let maxBytes = 64 * 1024

    let json: JSON
    private(set) var errors = FieldErrors()

    /// The body of `request` as a JSON object.
    /// - Throws: `Problem` 413 (over 64 KiB), 415 (not JSON), 400 (malformed JSON, or not an object).
    init(_ request: Request) throws {
        guard request.body.count <= Self.maxBytes else {
            throw Problem(status: 413, slug: "body-too-large", title: "Body too large",
                          detail: "Device requests are at most \(Self.maxBytes) bytes; this one has \(request.body.count).")
        }
        json = try JSONBody.read(request)
        guard json.members != nil else {
            throw Problem.malformedRequest([FieldError("", "must be a JSON object")])
        }
    }

    /// The string member `name` (1 to `maxLength` UTF-8 bytes); nil and an error when missing or not such a string.
    mutating func string(_ name: String, maxLength: Int, what: String) -> String? {
        Self.string(json[name], "/" + name, max: maxLength, what: what, &errors)
    }

    /// The string `value` at `pointer` (1 to `max` UTF-8 bytes); nil and an error when missing or not such a string:
    /// every device body's string fields are read by this one function.
    static func string(_ value: JSON?, _ pointer: String, max: Int, what: String, _ errors: inout FieldErrors) -> String? {
        guard let value, !value.isNull else {
            errors.add(pointer, "is required: \(what)")
            return nil
        }
        guard let text = value.string, !text.isEmpty, text.utf8.count <= max else {
            errors.add(pointer, "must be \(what) (a non-empty string of at most \(max) bytes)")
            return nil
        }
        return text
    }

    /// The base64 member `name` (either alphabet, padded or not) decoded; nil and an error when missing, not a string,
    /// not base64, or of another length than `exactly` when given. With `optional`, a missing, null or empty member
    /// is nil without an error.
    mutating func bytes(_ name: String, what: String, exactly: Int? = nil, optional: Bool = false) -> [UInt8]? {
        let value = json[name]
        if optional, value == nil || value?.isNull == true || value?.string == "" { return nil }
        guard let value, !value.isNull else {
            errors.add("/" + name, "is required: \(what)")
            return nil
        }
        guard let text = value.string, !text.isEmpty, let bytes = Base64.decode(text) else {
            errors.add("/" + name, "must be \(what), as a non-empty base64 string")
            return nil
        }
        if let exactly, bytes.count != exactly {
            errors.add("/" + name, "must be \(what): \(exactly) bytes in base64, got \(bytes.count)")
            return nil
        }
        return bytes
    }

    /// Adds an error at `/name` for a value that was read but cannot be used.
    mutating func reject(_ name: String, _ message: String) {
        errors.add("/" + name, message)
    }

    /// Throws the collected errors as one 400 problem, if any.
    func throwIfAny() throws {
        guard !errors.isEmpty else { return }
        throw Problem.malformedRequest(errors.errors)
    }
}
