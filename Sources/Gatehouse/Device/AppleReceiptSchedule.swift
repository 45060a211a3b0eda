/// When a key's receipt is next traded (docs/device-api.md "Refresh"): spread over the day by the key id, no sooner
/// than the receipt's not-before, never within an hour of registration, and backed off with jitter after failures.
/// Pure: times in, a time out.
enum AppleReceiptSchedule {
    static let day: Int64 = 86_400
    /// A key is not refreshed in the background within this long of its registration.
    static let afterRegistration: Int64 = 3_600
    /// How long a server holds a key it claimed before another may try it (the call's time bound and more).
    static let claim: Int64 = 600
    /// The first back-off after a 429, 5xx or unreachable Apple; doubled per failure up to a day.
    static let firstBackOff: Int64 = 300

    /// This key's offset into any day: the same every day, different between keys.
    static func spread(_ keyID: [UInt8]) -> Int64 {
        Int64(keyID.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % UInt32(day))
    }

    /// The first refresh of a key registered at `now`: an hour later at the earliest, at the key's time of day.
    static func first(keyID: [UInt8], registeredAt now: Int64) -> Int64 {
        atKeysTime(keyID, notBefore: now + afterRegistration)
    }

    /// After a new receipt (or Apple's 304 or 404) at `now`: a day later at the earliest, not before the receipt's
    /// not-before, at the key's time of day.
    static func next(keyID: [UInt8], now: Int64, notBefore: Int64?) -> Int64 {
        atKeysTime(keyID, notBefore: max(now + day, notBefore ?? now))
    }

    /// After `failures` consecutive failures (429, 5xx, unreachable) at `now`: 5 minutes doubled per failure, at most a
    /// day, with `jitter` (0…1) taking up to half of it off.
    static func backOff(failures: Int, now: Int64, jitter: Double) -> Int64 {
        let base = min(firstBackOff << Int64(min(max(failures - 1, 0), 16)), day)
        return now + base - Int64(Double(base / 2) * min(max(jitter, 0), 1))
    }

    /// The first time at or after `notBefore` that falls on the key's time of day.
    static func atKeysTime(_ keyID: [UInt8], notBefore: Int64) -> Int64 {
        let dayStart = notBefore - ((notBefore % day) + day) % day
        let candidate = dayStart + spread(keyID)
        return candidate >= notBefore ? candidate : candidate + day
    }
}
