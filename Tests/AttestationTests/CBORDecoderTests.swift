import Attestation
import Crypto
import Testing

/// RFC 8949 Appendix A: every example whose kind we accept, decoded.
@Suite struct CBORDecoderTests {
    static let examples: [(hex: String, value: CBOR)] = [
        ("00", .unsigned(0)), ("01", .unsigned(1)), ("0a", .unsigned(10)), ("17", .unsigned(23)), ("1818", .unsigned(24)),
        ("1819", .unsigned(25)), ("1864", .unsigned(100)), ("1903e8", .unsigned(1000)), ("1a000f4240", .unsigned(1_000_000)),
        ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)), ("1bffffffffffffffff", .unsigned(UInt64.max)),
        ("3bffffffffffffffff", .negative(UInt64.max)), ("20", .negative(0)), ("29", .negative(9)), ("3863", .negative(99)),
        ("3903e7", .negative(999)),
        ("f90000", .float(0.0)), ("f93c00", .float(1.0)), ("f93e00", .float(1.5)), ("f97bff", .float(65504.0)),
        ("fa47c35000", .float(100000.0)), ("fa7f7fffff", .float(3.4028234663852886e+38)), ("fb7e37e43c8800759c", .float(1.0e+300)),
        ("f90001", .float(5.960464477539063e-8)), ("f90400", .float(0.00006103515625)), ("f9c400", .float(-4.0)),
        ("fbc010666666666666", .float(-4.1)), ("f97c00", .float(.infinity)), ("f9fc00", .float(-.infinity)),
        ("fa7f800000", .float(.infinity)), ("fb7ff0000000000000", .float(.infinity)),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("f7", .undefined),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")), ("62225c", .text("\"\\")),
        ("62c3bc", .text("\u{00fc}")), ("63e6b0b4", .text("\u{6c34}")), ("64f0908591", .text("\u{10151}")),
        ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { .unsigned(UInt64($0)) })),
        ("a0", .map([])),
        ("a201020304", .map([CBOR.Pair(.unsigned(1), .unsigned(2)), CBOR.Pair(.unsigned(3), .unsigned(4))])),
        ("a26161016162820203", .map([CBOR.Pair(.text("a"), .unsigned(1)),
                                     CBOR.Pair(.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
        ("826161a161626163", .array([.text("a"), .map([CBOR.Pair(.text("b"), .text("c"))])])),
        ("a56161614161626142616361436164614461656145", .map(["a", "b", "c", "d", "e"].map {
            CBOR.Pair(.text($0), .text($0.uppercased()))
        })),
        ("5f42010243030405ff", .bytes([1, 2, 3, 4, 5])), ("7f657374726561646d696e67ff", .text("streaming")),
        ("9fff", .array([])),
        ("9f018202039f0405ffff", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("9f01820203820405ff", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("83018202039f0405ff", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("83019f0203ff820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff", .array((1...25).map { .unsigned(UInt64($0)) })),
        ("bf61610161629f0203ffff", .map([CBOR.Pair(.text("a"), .unsigned(1)),
                                         CBOR.Pair(.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
        ("826161bf61626163ff", .array([.text("a"), .map([CBOR.Pair(.text("b"), .text("c"))])])),
        ("bf6346756ef563416d7421ff", .map([CBOR.Pair(.text("Fun"), .bool(true)), CBOR.Pair(.text("Amt"), .negative(1))])),
    ]

    @Test(arguments: examples.indices) func decodesAppendixA(index: Int) throws {
        let (hex, value) = Self.examples[index]
        let decoded = try CBORDecoder().decode(try Fixtures.hex(hex))
        #expect(decoded == value, "\(hex)")
    }

    @Test func decodesHalfPrecisionNaN() throws {
        guard case .float(let value) = try CBORDecoder().decode([0xF9, 0x7E, 0x00]) else {
            Issue.record("not a float")
            return
        }
        #expect(value.isNaN)
    }

    /// Appendix A's tags, bignums and simple values other than false/true/null/undefined are refused.
    static let refused: [(hex: String, kind: CBORError.Kind)] = [
        ("c074323031332d30332d32315432303a30343a30305a", .unsupportedTag), ("c11a514b67b0", .unsupportedTag),
        ("c249010000000000000000", .unsupportedTag), ("d74401020304", .unsupportedTag),
        ("f0", .unsupportedSimpleValue), ("f818", .unsupportedSimpleValue), ("f8ff", .unsupportedSimpleValue),
    ]

    @Test(arguments: refused.indices) func refusesTagsAndOtherSimpleValues(index: Int) throws {
        let (hex, kind) = Self.refused[index]
        let error = try #require(throws: CBORError.self) { try CBORDecoder().decode(try Fixtures.hex(hex)) }
        #expect(error.kind == kind)
        #expect(error.offset == 0)
    }

    /// Malformed input (RFC 8949 Appendix F examples among them), each with its error and offset.
    static let malformed: [(hex: String, kind: CBORError.Kind, offset: Int)] = [
        ("", .truncated, 0), ("18", .truncated, 0), ("19 01", .truncated, 0), ("1a 0102 03", .truncated, 0),
        ("1b 0102 0304 0506 07", .truncated, 0), ("41", .truncated, 0), ("61", .truncated, 0), ("5affffffff00", .truncated, 0),
        ("5bffffffffffffffff0102", .truncated, 0), ("7bffffffffffffffff0102", .truncated, 0), ("8201", .truncated, 0),
        ("a20102", .truncated, 0), ("a2010203", .truncated, 0), ("9f0102", .truncated, 3), ("bf0102", .truncated, 3),
        ("5f4100", .truncated, 3), ("1c", .malformedHead, 0), ("1d", .malformedHead, 0), ("1e", .malformedHead, 0),
        ("1f", .malformedHead, 0), ("3f", .malformedHead, 0), ("fc", .malformedHead, 0), ("ff", .unexpectedBreak, 0),
        ("8201ff", .unexpectedBreak, 2), ("a101ff", .unexpectedBreak, 2), ("5f00ff", .invalidChunk, 1),
        ("5f5f4100ffff", .invalidChunk, 1), ("5f6100ff", .invalidChunk, 1), ("7f4100ff", .invalidChunk, 1),
        ("bf01ff", .oddMapLength, 2), ("62c328", .invalidUTF8, 0), ("7f61c361bcff", .invalidUTF8, 1),
        ("a2010201 03", .duplicateKey, 3), ("bf616101616102ff", .duplicateKey, 4), ("0001", .trailingBytes, 1),
        ("8001", .trailingBytes, 1),
    ]

    @Test(arguments: malformed.indices) func refusesMalformedInput(index: Int) throws {
        let (hex, kind, offset) = Self.malformed[index]
        let bytes = try Fixtures.hex(hex.replacingOccurrences(of: " ", with: ""))
        let error = try #require(throws: CBORError.self) { try CBORDecoder().decode(bytes) }
        #expect(error.kind == kind, "\(hex): \(error)")
        #expect(error.offset == offset, "\(hex): \(error)")
    }

    @Test func decodesAPrefixAndSaysWhereItEnds() throws {
        let (item, end) = try CBORDecoder().decodePrefix([0xFF, 0x82, 0x01, 0x02, 0x99], from: 1)
        #expect(item == .array([.unsigned(1), .unsigned(2)]))
        #expect(end == 4)
        #expect(throws: CBORError(.truncated, at: 5)) { try CBORDecoder().decodePrefix([0x00], from: 5) }
    }

    @Test func readsMapsByKeyAndIntegers() throws {
        let map = try CBORDecoder().decode(try Fixtures.hex("a3616101016162206163"))
        #expect(map["a"] == .unsigned(1))
        #expect(map[.unsigned(1)] == .text("b"))
        #expect(map["b"] == nil)
        #expect(map[.unsigned(1)]?.textString == "b")
        #expect(map["a"]?.integer == 1)
        #expect(CBOR.negative(0).integer == -1)
        #expect(CBOR.negative(UInt64.max).integer == nil)
        #expect(CBOR.unsigned(UInt64.max).integer == nil)
        #expect(CBOR.text("x")["a"] == nil)
    }
}
