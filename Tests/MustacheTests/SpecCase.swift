import Foundation
import Mustache
import Testing

/// A JSON value from the spec files, decoded without Foundation's number/boolean guessing.
enum JSONValue: Decodable {
    case string(String), int(Int), double(Double), bool(Bool), null, array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    var mustache: MustacheValue {
        switch self {
        case .string(let value): return .string(value)
        case .int(let value): return .int(value)
        case .double(let value): return .double(value)
        case .bool(let value): return .bool(value)
        case .null: return .null
        case .array(let values): return .array(values.map(\.mustache))
        case .object(let members): return .dictionary(members.mapValues(\.mustache))
        }
    }
}

/// One test of the official Mustache spec.
struct SpecCase: Decodable, CustomTestStringConvertible, Sendable {
    var file = ""
    let name: String
    let desc: String
    let data: MustacheValue
    let template: String
    let partials: [String: String]
    let expected: String

    var testDescription: String { "\(file): \(name)" }

    private enum CodingKeys: String, CodingKey { case name, desc, data, template, partials, expected }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        desc = try container.decode(String.self, forKey: .desc)
        data = try container.decode(JSONValue.self, forKey: .data).mustache
        template = try container.decode(String.self, forKey: .template)
        partials = try container.decodeIfPresent([String: String].self, forKey: .partials) ?? [:]
        expected = try container.decode(String.self, forKey: .expected)
    }

    private struct SpecFile: Decodable { let tests: [SpecCase] }

    static let files = ["comments", "delimiters", "interpolation", "inverted", "partials", "sections", "~inheritance"]

    /// Every case of every spec file in the test bundle's Fixtures.
    static func all() -> [SpecCase] {
        files.flatMap { file -> [SpecCase] in
            guard let url = Bundle.module.url(forResource: file, withExtension: "json", subdirectory: "Fixtures"),
                  let data = try? Data(contentsOf: url),
                  let spec = try? JSONDecoder().decode(SpecFile.self, from: data) else { return [] }
            return spec.tests.map { var test = $0; test.file = file; return test }
        }
    }
}
