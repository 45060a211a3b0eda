/// The receipt's content read strictly: a DER `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`,
/// into its values by type. Unknown types are kept; a type given twice, a negative or oversized integer, or anything
/// else out of shape is refused.
struct AppleReceiptFields {
    /// The values by field type.
    private(set) var values: [Int: [UInt8]] = [:]

    /// The most fields a receipt may hold (Apple's have about ten).
    static let maxFields = 64

    /// Reads `content`; nil when it is not the set described.
    init?(_ content: [UInt8]) {
        var outer = DERReader(content[...])
        guard let set = outer.read(tag: 0x31), outer.isAtEnd else { return nil }
        var members = DERReader(set)
        while !members.isAtEnd {
            guard values.count < Self.maxFields, let sequence = members.read(tag: 0x30) else { return nil }
            var parts = DERReader(sequence)
            guard let type = parts.read(tag: 0x02).flatMap(Self.smallInteger), parts.read(tag: 0x02).flatMap(Self.smallInteger) != nil,
                  let value = parts.read(tag: 0x04), parts.isAtEnd, values[type] == nil else { return nil }
            values[type] = Array(value)
        }
    }

    /// A non-negative INTEGER of at most three content bytes in minimal form.
    private static func smallInteger(_ contents: ArraySlice<UInt8>) -> Int? {
        guard let first = contents.first, contents.count <= 3, first & 0x80 == 0,
              contents.count == 1 || first != 0 || contents[contents.index(after: contents.startIndex)] & 0x80 != 0 else { return nil }
        return contents.reduce(0) { $0 << 8 | Int($1) }
    }

    /// Field `type` as UTF-8 text, nil when absent or not UTF-8.
    func text(_ type: Int) -> String? {
        values[type].flatMap { String(validating: $0, as: UTF8.self) }
    }
}
