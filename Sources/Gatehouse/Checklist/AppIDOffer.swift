/// The checklist's one-click fix for a failing `apple.appIdNotRegistered`: register the app id phones attest most
/// (the one Apple certified on their keys), since a typo in the team id is the usual cause. Offered only for a
/// well-formed app id the environment does not register yet.
public struct AppIDOffer: Sendable, Equatable {
    /// The app id to register (`TEAMID.bundleId`).
    public var appID: String

    /// The offer for `item`, or nil when the item is not that check, is ok, names no app id, or it is registered.
    public init?(_ item: ChecklistItem, environment: Environment) {
        guard item.id == SetupItem.appIdNotRegistered.rawValue, item.status != .ok,
              let top = item.evidence.observed.first, AppleAppID.isValid(top.value),
              !environment.appleAppIDs.contains(top.value) else { return nil }
        appID = top.value
    }
}
