/// RFC 3339 times in UTC, as the API writes and reads them.
///
/// Computed by hand (civil-from-days arithmetic, https://howardhinnant.github.io/date_algorithms.html) rather than
/// with Foundation's `ISO8601DateFormatter`: making a formatter per call goes through ICU, which costs tens of
/// microseconds and takes ICU's global locks, so under load every worker thread queued behind it (every environment
/// in a response carries two times, every ingested verdict one).
public enum Timestamp {
    /// `2026-11-30T03:00:00Z`.
    public static func format(_ seconds: Int64) -> String {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var out: [UInt8] = []
        out.reserveCapacity(20)
        if year < 0 { out.append(UInt8(ascii: "-")) }
        append(abs(year), width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        append(month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        append(day, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        append(secondOfDay / 3600, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, width: 2, to: &out)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Unix seconds of an RFC 3339 `date-time` (§5.6: `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds, then `Z`
    /// or `±HH:MM`), rounded down to the second; nil for anything else or an impossible date.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// `parse(_:)` over the UTF-8 bytes of the text, for readers that have bytes and no String (verdict ingest).
    public static func parse(utf8 b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        func digits(_ count: Int) -> Int64? {
            guard i + count <= b.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<count {
                let d = b[i]
                guard d >= 48 && d <= 57 else { return nil }
                value = value * 10 + Int64(d - 48)
                i += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard i < b.count, characters.utf8.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2), expect("Tt"),
              let hour = digits(2), expect(":"), let minute = digits(2), expect(":"), let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month), hour <= 23, minute <= 59, second <= 60 else {
            return nil
        }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
            guard i > start else { return nil }
        }
        var offset: Int64 = 0
        if expect("Zz") {
            offset = 0
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let offsetHours = digits(2), expect(":"), let offsetMinutes = digits(2), offsetHours <= 23, offsetMinutes <= 59 else {
                return nil
            }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        return days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
    }

    public static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// (year, month 1…12, day) of a count of days since 1970-01-01 (H. Hinnant's civil_from_days).
    public static func civil(fromDays z: Int64) -> (Int64, Int64, Int64) {
        let z = z + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    public static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func append(_ value: Int64, width: Int, to out: inout [UInt8]) {
        var digits: [UInt8] = []
        var v = value
        repeat {
            digits.append(UInt8(48 + v % 10))
            v /= 10
        } while v > 0
        for _ in digits.count..<max(width, digits.count) { out.append(UInt8(ascii: "0")) }
        out.append(contentsOf: digits.reversed())
    }
}
