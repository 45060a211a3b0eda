/// A fast path for the RFC 3339 times of ingest batches: `Timestamp.parse` builds a Foundation date formatter per
/// call, which costs more than storing the verdict. This reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` itself
/// and leaves anything else to `Timestamp.parse`, so it accepts exactly what that accepts.
enum VerdictTime {
    /// Unix seconds of `text` (fractions dropped), or nil when it is not an RFC 3339 time.
    static func parse(_ text: String) -> Int64? {
        fast(Array(text.utf8)) ?? Timestamp.parse(text)
    }

    /// The common forms only; nil for anything unusual (leap seconds, lowercase separators, odd lengths).
    static func fast(_ b: [UInt8]) -> Int64? {
        guard b.count >= 20 else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for i in from..<(from + count) {
                guard i < b.count, b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int(b[i] - 48)
            }
            return value
        }
        guard b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58,
              let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
              (1...12).contains(month), day >= 1, day <= daysIn(month, year), hour < 24, minute < 60, second < 60
        else { return nil }
        var i = 19
        if b[i] == 46 {
            i += 1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 90, i + 1 == b.count {
            offset = 0
        } else if b[i] == 43 || b[i] == 45, i + 6 == b.count, b[i + 3] == 58,
                  let h = digits(i + 1, 2), let m = digits(i + 4, 2), h < 24, m < 60 {
            offset = (h * 3600 + m * 60) * (b[i] == 43 ? 1 : -1)
        } else {
            return nil
        }
        let days = daysFromCivil(year, month, day)
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
