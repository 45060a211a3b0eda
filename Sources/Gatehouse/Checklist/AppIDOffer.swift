/// The checklist's one-click fix for a failing `apple.appIdNotRegistered`: register the app id phones attest most
/// (the one Apple certified on their keys), since a typo in the team id is the usual cause. Offered only for a
/// well-formed app id the environment does not register yet whose bundle id is a registered app id's: anyone with an
/// Apple developer account can attest an app of their own against the environment's public key, and on a quiet
/// environment their verdicts would dominate the week, so an app id of another bundle is shown (the checklist's fix
/// says what it may be), never offered.
public struct AppIDOffer: Sendable, Equatable {
    /// The app id to register (`TEAMID.bundleId`).
    public var appID: String

    /// The offer for `item`, or nil when the item is not that check, is ok, names no app id, it is registered, or
    /// its bundle id is none of the environment's.
    public init?(_ item: ChecklistItem, environment: Environment) {
        guard let top = Self.attested(item), !environment.appleAppIDs.contains(top), Self.isOffered(top, in: environment) else { return nil }
        appID = top
    }

    /// Whether `appID` may be registered in one click: its bundle id is one the environment registers under another
    /// team id (the team-id typo).
    public static func isOffered(_ appID: String, in environment: Environment) -> Bool {
        let bundle = AppleAppID.bundleID(appID)
        return environment.appleAppIDs.contains { AppleAppID.bundleID($0) == bundle }
    }

    /// The well-formed app id `item` saw most, when it is a failing or warning `apple.appIdNotRegistered`.
    static func attested(_ item: ChecklistItem) -> String? {
        guard item.id == SetupItem.appIdNotRegistered.rawValue, item.status != .ok,
              let top = item.evidence.observed.first, AppleAppID.isValid(top.value) else { return nil }
        return top.value
    }
}
