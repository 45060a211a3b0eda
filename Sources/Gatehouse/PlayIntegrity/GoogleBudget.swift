import Crypto
import JSON

/// What calls to Google's `decodeIntegrityToken` may cost (docs/device-api.md "Play Integrity": junk and the Google
/// budget): the project's quota is shared by every phone, so anyone holding the public key could otherwise spend it
/// and Google's slots with distinct junk tokens. Junk is refused without a call; each client address may cause at
/// most ``perAddress`` calls an hour (per server, like the device API's rate limits); and the last 5 % of the daily
/// quota is kept back from everyone. Calls for tokens Google could not decode are also capped per environment and hour
/// across servers (``undecodableCap(dailyQuota:)``), so that no number of addresses can spend the day's reserve. A
/// token refused so is unavailable `googleBudgetExceeded`.
public final class GoogleBudget: Sendable {
    /// Calls per client address and hour by default (1 % of Google's default quota).
    public static let defaultPerAddress = 100
    /// The largest token sent to Google (16 KiB).
    static let maxTokenBytes = 16 * 1024
    /// The share of the daily quota calls may reach; the rest is kept for when the quota is nearly spent.
    static let quotaShare = 0.95

    /// Calls one address may cause per hour (0: no limit per address).
    public let perAddress: Int
    /// Calls per environment and hour for tokens Google could not decode; nil: 1 % of the daily quota; 0: no cap.
    public let undecodablePerHour: Int?
    private let limiter: RateLimiter

    /// What the reservation before a call found.
    enum Reservation: Sendable {
        /// Reserved: the call may be made.
        case reserved
        /// Today's calls reached the kept-back share of the quota: no call.
        case overQuota
        /// This hour's calls for tokens Google could not decode reached the cap: no call until the hour turns.
        case undecodableCapped
        /// The token was sent before, in the last 10 minutes: its replay, or its earlier failure.
        case earlier(JudgedIntegrityTokensTable.Earlier)
    }

    init(perAddress: Int, undecodablePerHour: Int?, clock: TimeSource) {
        self.perAddress = max(0, perAddress)
        self.undecodablePerHour = undecodablePerHour.map { max(0, $0) }
        limiter = RateLimiter(rate: Double(perAddress) / 3600, burst: Double(max(1, perAddress)), clock: clock.monotonic)
    }

    /// Takes one call from the hourly budget of `address`'s network (``AddressNetwork``: an IPv6 client by its /64):
    /// false when it is spent.
    func take(_ address: String) -> Bool {
        perAddress == 0 || limiter.take(AddressNetwork.key(address)) == nil
    }

    /// The hourly cap on calls for tokens Google could not decode in an environment of `dailyQuota` (0: none): the
    /// configured one, else 1 % of the quota (at least 1).
    func undecodableCap(dailyQuota: Int) -> Int {
        undecodablePerHour ?? max(1, dailyQuota / 100)
    }

    /// The count of today's calls from which no more are made: 95 % of `dailyQuota`.
    static func reserveThreshold(dailyQuota: Int) -> Int {
        Int((Double(max(0, dailyQuota)) * quotaShare).rounded(.down))
    }

    /// Whether `token` has the shape of a JWE compact serialization (RFC 7516 §7.1) worth Google's time: at most
    /// `maxBytes`, five base64url parts, the first a JSON object naming `alg` and `enc`. Anything else is junk.
    static func isCompactJWE(_ token: [UInt8], maxBytes: Int) -> Bool {
        guard !token.isEmpty, token.count <= maxBytes else { return false }
        let parts = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 5, !parts[0].isEmpty, !parts[3].isEmpty,
              token.allSatisfy({ isBase64URL($0) || $0 == UInt8(ascii: ".") }),
              let header = Base64.decodeURLSafeUnpadded(parts[0]), let json = try? JSONParser.parse(header),
              json["alg"]?.string != nil, json["enc"]?.string != nil
        else { return false }
        return true
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
    }
}
