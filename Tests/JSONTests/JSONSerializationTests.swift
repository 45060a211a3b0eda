import Foundation
import JSON
import Testing

/// The serializer's string escaping, read back by another implementation (Foundation's JSONSerialization).
@Suite("JSON serialization")
struct JSONSerializationTests {
    static func foundationRead(_ bytes: [UInt8]) throws -> String? {
        try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? String
    }

    @Test func everyASCIICharacterRoundTrips() throws {
        for byte in UInt8(0)..<0x80 {
            let text = "a" + String(UnicodeScalar(byte)) + "b"
            let bytes = JSON.string(text).serialized()
            #expect(try Self.foundationRead(bytes) == text, "byte \(byte): \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func mixedStringsRoundTrip() throws {
        var state: UInt64 = 42
        let alphabet: [String] = ["a", "Z", "0", " ", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "<", ">", "&",
                                  "é", "€", "😀", "👩‍👩‍👧", "\u{2028}", "/"]
        for _ in 0..<500 {
            var text = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1
            for _ in 0..<Int(state >> 60) {
                state = state &* 6_364_136_223_846_793_005 &+ 1
                text += alphabet[Int(state >> 33) % alphabet.count]
            }
            #expect(try Self.foundationRead(JSON.string(text).serialized()) == text, "\(text.debugDescription)")
        }
    }

    @Test func escapesExactly() {
        #expect(JSON.string("q\"b\\n\nr\rt\t\u{1}\u{7F}<>&é").text == #""q\"b\\n\nr\rt\t\u0001\u007f\u003c\u003e\u0026é""#)
        #expect(JSON.array([true, false, .null, "", 1]).text == #"[true,false,null,"",1]"#)
    }
}
