import Testing
@testable import Gatehouse

@Suite("Checklist traffic: ingest times read fast and the same as Timestamp.parse")
struct ChecklistVerdictTimeTests {
    @Test("the fast path agrees with Timestamp.parse", arguments: [
        "2026-11-30T12:00:00Z", "2026-11-30T12:00:00.123Z", "2024-02-29T23:59:59Z", "1970-01-01T00:00:00Z",
        "2026-11-30T12:00:00+02:00", "2026-11-30T12:00:00.5-05:30", "1999-12-31T23:59:59.999999Z",
    ])
    func agrees(_ text: String) throws {
        let fast = try #require(VerdictTime.fast(Array(text.utf8)))
        #expect(fast == Timestamp.parse(text))
    }

    @Test("malformed or unusual times take the slow path, which decides", arguments: [
        "2026-02-30T12:00:00Z", "2023-02-29T00:00:00Z", "2026-11-30 12:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T12:00:00",
        "2026-11-30T12:00:00.Z", "2026-13-01T00:00:00Z", "x", "2026-11-30T12:00:00+0200",
    ])
    func fallsBack(_ text: String) {
        #expect(VerdictTime.fast(Array(text.utf8)) == nil)
        #expect(VerdictTime.parse(text) == Timestamp.parse(text))
    }
}
