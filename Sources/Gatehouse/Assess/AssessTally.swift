import Synchronization

/// How many assessed requests of each environment and platform could have proven themselves in the last hour, and
/// how many of those came without a verified attestation: what the Overview shows as attack mode's effect ("in the
/// last hour 3 % of iOS requests came without proof and would be challenged").
///
/// Kept in memory per minute for the last 60 minutes (bounded: at most ``maxEnvironments`` environments); a restart
/// starts the hour again. Counted whether attack mode is on or not, so the effect is known before the switch.
public final class AssessTally: Sendable {
    /// The counts of one platform over the last hour.
    public struct Counts: Sendable, Equatable {
        /// Requests of a platform that could have proven itself.
        public var requests = 0
        /// Of those, the ones without a verified attestation.
        public var unproven = 0

        /// The share unproven, in percent (0 when there were no requests).
        public var unprovenPercent: Double { requests == 0 ? 0 : Double(unproven) * 100 / Double(requests) }
    }

    /// The most environments tallied; past it the oldest-touched tallies are dropped.
    public static let maxEnvironments = 10_000
    private static let minutes: Int64 = 60

    private struct Minute {
        var minute: Int64
        var requests = 0
        var unproven = 0
    }

    /// A tally's minutes, oldest first.
    private struct Minutes {
        var minutes: [Minute] = []

        /// Counts one request in `minute`, dropping the minutes that left the hour when a new minute starts (in place:
        /// this runs under the tally's lock on every assessment).
        mutating func count(minute: Int64, proven: Bool) {
            if minutes.last?.minute != minute {
                minutes.removeAll { $0.minute <= minute - AssessTally.minutes }
                minutes.append(Minute(minute: minute))
            }
            minutes[minutes.count - 1].requests += 1
            if !proven { minutes[minutes.count - 1].unproven += 1 }
        }
    }

    private struct Key: Hashable {
        var environmentID: String
        var platform: AssessRequest.Platform
    }

    private let buckets = Mutex<[Key: Minutes]>([:])

    public init() {}

    /// Counts one request of `platform` in `environmentID` at `now` (unix seconds).
    func count(environmentID: String, platform: AssessRequest.Platform, proven: Bool, at now: Int64) {
        let minute = now / 60
        buckets.withLock { buckets in
            let key = Key(environmentID: environmentID, platform: platform)
            if buckets[key] == nil && buckets.count >= Self.maxEnvironments * AssessRequest.Platform.allCases.count {
                buckets.removeAll(keepingCapacity: true)
            }
            buckets[key, default: Minutes()].count(minute: minute, proven: proven)
        }
    }

    /// The counts of `platform` in `environmentID` over the hour before `now`.
    public func lastHour(environmentID: String, platform: AssessRequest.Platform, now: Int64) -> Counts {
        let minute = now / 60
        return buckets.withLock { buckets in
            var counts = Counts()
            for bucket in buckets[Key(environmentID: environmentID, platform: platform)]?.minutes ?? [] where bucket.minute > minute - Self.minutes {
                counts.requests += bucket.requests
                counts.unproven += bucket.unproven
            }
            return counts
        }
    }
}
