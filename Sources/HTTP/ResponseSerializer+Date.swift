extension ResponseSerializer {
    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate of a time (RFC 9110 §5.6.7), e.g. "Sun, 06 Nov 1994 08:49:37 GMT", for `Date`,
    /// `Last-Modified` and `Expires`.
    public static func httpDate(epochSeconds: Int) -> String {
        let days = epochSeconds >= 0 ? epochSeconds / 86_400 : -((-(epochSeconds + 1)) / 86_400) - 1
        let seconds = epochSeconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (4)
        return "\(dayNames[weekday]), \(pad(day, 2)) \(monthNames[month - 1]) \(pad(year, 4)) "
            + "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)) GMT"
    }

    /// The time of an HTTP-date (for `If-Modified-Since`), or nil when it is not one. Accepts the three formats
    /// RFC 9110 §5.6.7 requires recipients to read: IMF-fixdate, the obsolete RFC 850 form (a two-digit year is
    /// taken as 1970–2069) and asctime. The day name must be a real one but is not checked against the date.
    public static func parseHTTPDate(_ text: String) -> Int? {
        var c = DateCursor(bytes: Array(text.utf8))
        var day = 0, month = 0, year = 0, time = 0
        if let weekday = c.word(dayNames), c.take(",") {  // IMF-fixdate
            _ = weekday
            guard c.take(" "), let d = c.digits(2), c.take(" "), let m = c.word(monthNames), c.take(" "),
                  let y = c.digits(4), c.take(" "), let t = c.timeOfDay(), c.take(" GMT"), c.atEnd else { return nil }
            (day, month, year, time) = (d, m + 1, y, t)
        } else if c.restart(), c.word(longDayNames) != nil, c.take(",") {  // rfc850-date
            guard c.take(" "), let d = c.digits(2), c.take("-"), let m = c.word(monthNames), c.take("-"),
                  let y = c.digits(2), c.take(" "), let t = c.timeOfDay(), c.take(" GMT"), c.atEnd else { return nil }
            (day, month, year, time) = (d, m + 1, y < 70 ? 2000 + y : 1900 + y, t)
        } else if c.restart(), c.word(dayNames) != nil, c.take(" ") {  // asctime-date
            guard let m = c.word(monthNames), c.take(" ") else { return nil }
            let d: Int
            if c.take(" "), let one = c.digits(1) { d = one } else if let two = c.digits(2) { d = two } else { return nil }
            guard c.take(" "), let t = c.timeOfDay(), c.take(" "), let y = c.digits(4), c.atEnd else { return nil }
            (day, month, year, time) = (d, m + 1, y, t)
        } else {
            return nil
        }
        guard day >= 1, day <= daysInMonth(month, year: year) else { return nil }
        return days(fromCivil: year, month, day) * 86_400 + time
    }

    private static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-compatible date algorithms").
    static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day count since 1970-01-01 (inverse of `days(fromCivil:_:_:)`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// A cursor over the bytes of an HTTP-date.
private struct DateCursor {
    let bytes: [UInt8]
    var i = 0

    var atEnd: Bool { i == bytes.count }

    mutating func restart() -> Bool {
        i = 0
        return true
    }

    mutating func take(_ literal: String) -> Bool {
        let lit = Array(literal.utf8)
        guard bytes.count - i >= lit.count, bytes[i..<(i + lit.count)].elementsEqual(lit) else { return false }
        i += lit.count
        return true
    }

    /// The index in `words` of the word at the cursor (case-sensitive, as the grammar says).
    mutating func word(_ words: [String]) -> Int? {
        for (index, w) in words.enumerated() where take(w) { return index }
        return nil
    }

    mutating func digits(_ count: Int) -> Int? {
        guard bytes.count - i >= count else { return nil }
        var n = 0
        for b in bytes[i..<(i + count)] {
            guard (0x30...0x39).contains(b) else { return nil }
            n = n * 10 + Int(b - 0x30)
        }
        i += count
        return n
    }

    /// time-of-day = hour ":" minute ":" second, as seconds since midnight (a leap second 60 counts as 59).
    mutating func timeOfDay() -> Int? {
        guard let h = digits(2), take(":"), let m = digits(2), take(":"), let s = digits(2),
              h < 24, m < 60, s <= 60 else { return nil }
        return h * 3600 + m * 60 + min(s, 59)
    }
}
