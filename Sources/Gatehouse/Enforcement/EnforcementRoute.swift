import GatehouseReceipts

/// One route of an environment's enforcement (docs/device-api.md "Routes and modes"): the calls it matches, the mode it
/// judges them under, what it requires of their receipts, and whether it spends them.
public struct EnforcementRoute: Sendable, Equatable {
    /// `[a-z0-9][a-z0-9-]{0,39}`, unique in the environment: the label of its counts.
    public var name: String
    /// The calls it matches (`POST /api/payments/**`).
    public var match: RouteMatch
    /// Its mode; nil takes the environment's.
    public var mode: EnforcementMode?
    /// The receipt policy of `/api/v4/receipts/verify`'s `require`.
    public var require: ReceiptPolicy
    /// Whether a call that meets everything spends its receipt (once across servers).
    public var consume: Bool

    public init(name: String, match: RouteMatch, mode: EnforcementMode? = nil, require: ReceiptPolicy = ReceiptPolicy(), consume: Bool = false) {
        self.name = name
        self.match = match
        self.mode = mode
        self.require = require
        self.consume = consume
    }

    /// Whether `name` is a route name: `[a-z0-9][a-z0-9-]{0,39}`.
    public static func isName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 40, isLowerAlphanumeric(first) else { return false }
        return bytes.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") }
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
