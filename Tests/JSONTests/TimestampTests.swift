import Foundation
import JSON
import Testing

/// `Timestamp` against another implementation (Foundation's `ISO8601DateFormatter`) and RFC 3339's grammar.
@Suite("Timestamp")
struct TimestampTests {
    static func foundationFormat(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func foundationParse(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970.rounded(.down)) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }

    /// Edges (epoch, before it, leap days, century rules, 1600 and the last second of 9999) and 2 000 spread values
    /// (Gregorian years only: ICU switches to the Julian calendar before 1582).
    static let seconds: [Int64] = {
        var values: [Int64] = [0, -1, 59, 86_399, 86_400, -86_400, -86_401, 951_782_400, 951_868_799, 951_868_800,
                               -2_203_891_200, 4_107_542_400, 4_107_542_399, 1_795_000_000, 253_402_300_799, -11_676_096_000]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Int64(state >> 29) % 265_078_396_800 - 11_676_096_000)  // 1600 to 9999
        }
        return values
    }()

    @Test func formatsAsFoundationDoes() {
        var mismatches: [String] = []
        for value in Self.seconds where Timestamp.format(value) != Self.foundationFormat(value) {
            mismatches.append("\(value): \(Timestamp.format(value)) vs \(Self.foundationFormat(value))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(Timestamp.format(1_795_000_000) == "2026-11-18T11:06:40Z")
    }

    @Test func parsesWhatItFormats() {
        for value in Self.seconds where value >= 0 {
            #expect(Timestamp.parse(Timestamp.format(value)) == value)
        }
    }

    @Test("offsets and fractions read as Foundation reads them", arguments: [
        "2026-11-30T12:00:00Z", "2026-11-30T12:00:00.999Z", "2026-11-30T12:00:00.5+01:00", "2026-11-30T00:30:00-05:30",
        "2000-02-29T23:59:59+14:00", "1999-12-31T23:59:59.000001-12:00", "2024-03-01T00:00:00+00:00",
    ])
    func parsesAsFoundationDoes(text: String) throws {
        let expected = try #require(Self.foundationParse(text))
        #expect(Timestamp.parse(text) == expected)
    }

    @Test("everything else is refused", arguments: [
        "", "2026-11-30", "2026-11-30T12:00:00", "2026-11-30 12:00:00Z", "2026-11-30T12:00Z", "2026-13-01T00:00:00Z",
        "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-30T24:00:00Z",
        "2026-11-30T12:60:00Z", "2026-11-30T12:00:00.Z", "2026-11-30T12:00:00+0100", "2026-11-30T12:00:00Z ",
        "+2026-11-30T12:00:00Z", "2026-11-30T12:00:00+24:00", "２０２６-11-30T12:00:00Z", "1795000000",
    ])
    func refuses(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func acceptsRFC3339Variants() {
        #expect(Timestamp.parse("2026-11-30t12:00:00z") == Timestamp.parse("2026-11-30T12:00:00Z"))
        #expect(Timestamp.parse("2000-02-29T00:00:00Z") == 951_782_400)
        #expect(Timestamp.parse("1969-12-31T23:59:59.5Z") == -1)
    }
}
