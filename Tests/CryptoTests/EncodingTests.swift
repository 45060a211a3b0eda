import Crypto
import Testing

@Suite struct Base64Tests {
    /// RFC 4648 §10 test vectors, in every alphabet and padding combination.
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648(text: String, encoded: String) {
        let bytes = Array(text.utf8)
        #expect(Base64.encode(bytes) == encoded)
        #expect(Base64.encode(bytes, alphabet: .urlSafe) == encoded)
        let unpadded = String(encoded.filter { $0 != "=" })
        #expect(Base64.encode(bytes, padded: false) == unpadded)
        #expect(Base64.decode(encoded) == bytes)
        #expect(Base64.decode(unpadded) == bytes)
    }

    /// Unpadded base64url reads only its one canonical spelling.
    @Test(arguments: [("Zm9vYg", Array("foob".utf8)), ("-_8", [0xFB, 0xFF]), ("", []),
                      ("Zm9vYg==", nil), ("+/8", nil), ("Zm9v Yg", nil), ("Zh", nil), ("Z", nil)] as [(String, [UInt8]?)])
    func urlSafeUnpadded(text: String, bytes: [UInt8]?) {
        #expect(Base64.decodeURLSafeUnpadded(Array(text.utf8)) == bytes)
    }

    @Test func alphabetsDifferOnlyInTheLastTwoCharacters() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf, 0xfe]
        #expect(Base64.encode(bytes) == "+/+//g==")
        #expect(Base64.encode(bytes, alphabet: .urlSafe) == "-_-__g==")
        #expect(Base64.encode(bytes, alphabet: .urlSafe, padded: false) == "-_-__g")
        #expect(Base64.decode("+/+//g==") == bytes)
        #expect(Base64.decode("-_-__g==") == bytes)
        #expect(Base64.decode("-_-__g") == bytes)
        #expect(Base64.decode("+/+//g") == bytes)
    }

    @Test func roundTripsEveryLength() throws {
        for count in 0..<70 {
            let bytes = try SecureRandom.bytes(count)
            for alphabet in [Base64.Alphabet.standard, .urlSafe] {
                for padded in [true, false] {
                    #expect(Base64.decode(Base64.encode(bytes, alphabet: alphabet, padded: padded)) == bytes)
                }
            }
        }
    }

    /// Every byte value in every position of a quantum: the 64 characters of each alphabet decode to their index,
    /// anything else is refused (`=` only where it pads).
    @Test func everyByteInEveryPosition() {
        let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for byte in UInt8.min...UInt8.max {
            let value = standard.firstIndex(of: byte) ?? urlSafe.firstIndex(of: byte)
            for position in 0..<4 {
                var text = Array("AAAA".utf8)
                text[position] = byte
                let decoded = Base64.decode(String(decoding: text, as: UTF8.self))
                if let value {
                    let group = UInt32(value) << (6 * (3 - position))
                    #expect(decoded == [UInt8(truncatingIfNeeded: group >> 16), UInt8(truncatingIfNeeded: group >> 8), UInt8(truncatingIfNeeded: group)])
                } else if byte == UInt8(ascii: "="), position == 3 {
                    #expect(decoded == [0, 0])
                } else {
                    #expect(decoded == nil, "byte \(byte) at \(position)")
                }
                let unpadded = Base64.decodeURLSafeUnpadded(text)
                #expect((unpadded != nil) == urlSafe.contains(byte), "byte \(byte) at \(position) in base64url")
            }
        }
    }

    @Test(arguments: [
        "Zg=", "Zg===", "Zm8==", "Zm9v=", "Z", "Zm9vY", "=", "==", "Zg==Zg==", "Z=g=",
        "Zm9v\n", " Zm9v", "Zm 9v", "Zm9v\r\n",
        "+/-_", "a+b_",
        "Zh==", "Zm9=", "Zh",
        "Zm9v!", "Zm9vä", "Zg==\u{0}",
    ])
    func rejects(input: String) {
        #expect(Base64.decode(input) == nil)
    }
}

@Suite struct HexTests {
    @Test func encodes() {
        let bytes: [UInt8] = [0x00, 0xab, 0xcd, 0xef, 0x10]
        #expect(Hex.encode(bytes) == "00abcdef10")
        #expect(Hex.encode(bytes, uppercase: true) == "00ABCDEF10")
        #expect(Hex.encode(bytes, uppercase: true, separator: ":") == "00:AB:CD:EF:10")
        #expect(Hex.encode([0xab], separator: ":") == "ab")
        #expect(Hex.encode([], separator: ":") == "")
    }

    @Test(arguments: [
        ("", []), ("00", [0x00]), ("abCD", [0xab, 0xcd]), ("ABCDEF10", [0xab, 0xcd, 0xef, 0x10]),
        ("ab:cd", [0xab, 0xcd]), ("AB:cD:eF:10", [0xab, 0xcd, 0xef, 0x10]), ("ff", [0xff]),
    ] as [(String, [UInt8])])
    func decodes(input: String, bytes: [UInt8]) {
        #expect(Hex.decode(input) == bytes)
    }

    @Test(arguments: [
        "a", "abc", "0xab", "ab:", ":ab", "ab::cd", "ab:cd:", "abcd:ef", "ab:cdef", "ab cd", " ab", "ab\n",
        "gg", "ab-cd", "a:bc", "ab:c", "é1",
    ])
    func rejects(input: String) {
        #expect(Hex.decode(input) == nil)
    }

    @Test func roundTrips() throws {
        let bytes = try SecureRandom.bytes(48)
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
        #expect(Hex.decode(Hex.encode(bytes, uppercase: true, separator: ":")) == bytes)
    }
}
