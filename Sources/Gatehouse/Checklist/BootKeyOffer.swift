import Attestation

/// The checklist's one-click fix for a failing `keyAttestation.bootKeys`: accept the boot key phones presented most,
/// when it is a key an operating system publishes for its official releases (``PublishedBootKeys``, GrapheneOS's per
/// device) and the policy does not accept it yet. Any other key is someone's own build: shown, never offered, since a
/// phone's owner can sign a system of their own and a quiet environment's week would be theirs.
public struct BootKeyOffer: Sendable, Equatable {
    /// The boot key (lowercase hex).
    public var bootKey: String
    /// Whose it is.
    public var published: PublishedBootKeys.Entry

    /// The offer for `item`, or nil when the item is not that check, is ok, or its most presented key is unpublished or
    /// accepted already.
    public init?(_ item: ChecklistItem, environment: Environment) {
        guard item.id == SetupItem.bootKeyUnknown.rawValue, item.status != .ok,
              let top = item.evidence.observed.first?.value.lowercased(), let published = PublishedBootKeys.named(top),
              !environment.keyAttestation.bootKeys.contains(top) else { return nil }
        bootKey = top
        self.published = published
    }
}
