import JSON

/// Reading JOSE JSON strictly: an object whose member names are unique (RFC 7515 §4: a header with duplicate
/// names is rejected), and typed members.
struct StrictObject {
    private let members: [String: JSON]

    /// Parses `bytes` as one JSON object with unique member names.
    init(bytes: [UInt8], kind: ReceiptError.Kind, what: String) throws(ReceiptError) {
        let value: JSON
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw ReceiptError(kind, "\(what) is not JSON")
        }
        try self.init(value, kind: kind, what: what)
    }

    /// Takes `value` when it is an object with unique member names.
    init(_ value: JSON, kind: ReceiptError.Kind, what: String) throws(ReceiptError) {
        guard case .object(let list) = value else { throw ReceiptError(kind, "\(what) is not a JSON object") }
        var members: [String: JSON] = [:]
        for member in list {
            guard members.updateValue(member.value, forKey: member.key) == nil else {
                throw ReceiptError(kind, "\(what) names \(member.key) twice")
            }
        }
        self.members = members
    }

    /// The member `name`, or nil when absent.
    subscript(name: String) -> JSON? { members[name] }

    /// Whether the object has a member `name`.
    func has(_ name: String) -> Bool { members[name] != nil }

    /// The string member `name`.
    func string(_ name: String, kind: ReceiptError.Kind, what: String, maxLength: Int = 256) throws(ReceiptError) -> String {
        guard let value = members[name]?.string, !value.isEmpty, value.utf8.count <= maxLength else {
            throw ReceiptError(kind, "\(what) needs \(name) as a string of 1 to \(maxLength) bytes")
        }
        return value
    }

    /// The integer member `name` (a whole number, no fraction).
    func integer(_ name: String, kind: ReceiptError.Kind, what: String) throws(ReceiptError) -> Int64 {
        guard let value = members[name]?.integer else { throw ReceiptError(kind, "\(what) needs \(name) as a whole number") }
        return Int64(value)
    }
}
