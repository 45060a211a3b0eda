import JSON
import Testing

@Suite("JSON")
struct JSONTests {
    @Test func roundTrip() throws {
        let text = #"{"a":[1,2.5,-3e2,true,false,null],"b":"x\"y\\z\n\u00e9\ud83d\ude00","c":{}}"#
        let value = try JSONParser.parse(text)
        #expect(value["a"]?.array?.count == 6)
        #expect(value["b"]?.string == "x\"y\\z\né😀")
        #expect(try JSONParser.parse(value.serialized()) == value)
        #expect(value["a"]?.array?[2].integer == -300)
    }

    @Test("malformed JSON reports the byte offset", arguments: [
        ("", 0), ("{", 1), (#"{"a" 1}"#, 5), ("[1,]", 3), ("[01]", 2), (#""\x""#, 2), ("tru", 0), ("{} x", 3),
        (#""\ud800""#, 7), ("[1 2]", 3), ("\"ab\u{1}\"", 3), ("\"abc", 4), (#"["plain", "then\q"]"#, 16), (String(repeating: "[", count: 100), 64),
    ])
    func offsets(text: String, offset: Int) {
        do {
            _ = try JSONParser.parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }

    /// Strings with and without escapes, long plain runs, and bytes that are not UTF-8.
    @Test func strings() throws {
        let long = String(repeating: "éa-_", count: 600)
        #expect(try JSONParser.parse("\"\(long)\"").string == long)
        #expect(try JSONParser.parse(#""\#(long)\n\#(long)\t""#).string == long + "\n" + long + "\t")
        #expect(try JSONParser.parse(#""""#).string == "")
        #expect(try JSONParser.parse(#""\"""#).string == "\"")
        do {
            _ = try JSONParser.parse([0x22, 0x61, 0xFF, 0x22])
            Issue.record("parsed a string that is not UTF-8")
        } catch {
            #expect(error.offset == 4)
        }
    }

    @Test func serializationEscapesHTMLSignificantCharacters() {
        let json: JSON = ["k": "</script><b>&"]
        #expect(json.text == #"{"k":"\u003c/script\u003e\u003cb\u003e\u0026"}"#)
    }
}
