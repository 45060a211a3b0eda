import JSON

/// Today's use of an environment's Play Integrity quota: `GET …/play-integrity/usage`.
public struct PlayIntegrityUsage: Sendable, Equatable {
    /// Google's day (Pacific time).
    public var day: PacificDay
    /// Tokens judged per package (distinct tokens that decoded, locally or through Google).
    public var tokens: [String: Int]
    /// Calls to Google's decodeIntegrityToken.
    public var googleDecodes: Int
    /// The environment's daily quota.
    public var dailyQuota: Int

    /// `{"day", "tokens": {package: n}, "googleDecodes", "dailyQuota"}`.
    public var json: JSON {
        .object([
            .init("day", .string(day.text)),
            .init("tokens", .object(tokens.sorted { $0.key < $1.key }.map { .init($0.key, .int(Int64($0.value))) })),
            .init("googleDecodes", .int(Int64(googleDecodes))),
            .init("dailyQuota", .int(Int64(dailyQuota))),
        ])
    }
}
