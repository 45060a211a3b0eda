/// How the launched binary was signed, as App Attest reports it from iOS 27 (`apple_validation_category_01`): the
/// operating system's code-signing validation category. Numbers without a name here are kept as numbers.
public struct ValidationCategory: Sendable, Hashable, Comparable {
    /// The number Apple sends (a 4-byte little-endian unsigned integer).
    public var value: UInt32

    /// The category numbered `value`.
    public init(_ value: UInt32) {
        self.value = value
    }

    /// The names the policy and the observed values use, by number (docs/attestation-notes.md §1.6).
    static let names: [UInt32: String] = [
        2: "testFlight", 3: "development", 4: "appStore", 5: "enterprise", 6: "developerID", 7: "localSigning",
    ]

    /// Its name, or nil for a number without one.
    public var name: String? { Self.names[value] }

    /// Its name, or its number as text (`validationCategory:<this>` in a reason).
    public var label: String { name ?? String(value) }

    /// The category named `name` (one of the names, or a decimal number), or nil.
    public init?(label: String) {
        if let number = Self.names.first(where: { $0.value == label })?.key {
            value = number
        } else if !label.isEmpty, label.count <= 10, label.utf8.allSatisfy({ (48...57).contains($0) }), let number = UInt32(label) {
            value = number
        } else {
            return nil
        }
    }

    /// The names in their numbers' order (for messages).
    public static var knownNames: [String] { names.sorted { $0.key < $1.key }.map(\.value) }

    public static func < (lhs: ValidationCategory, rhs: ValidationCategory) -> Bool { lhs.value < rhs.value }
}
