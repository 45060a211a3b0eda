/// Boot keys operating systems publish for their official releases, so that a self-signed boot can be named and
/// offered for the policy (docs/device-api.md "The policy"). A phone running one of them attests
/// `verifiedBootState` SelfSigned with the SHA-256 of the key as `verifiedBootKey`.
///
/// Source: GrapheneOS, "Verifying installation" in its CLI install guide (https://grapheneos.org/install/cli) and
/// its attestation compatibility guide (https://grapheneos.org/articles/attestation-compatibility-guide), the
/// base16 fingerprints of the verified boot keys of its official releases, one per device model, as published on
/// 2026-12-06. A device model added later is not named until this table learns it (its key can still be added to the
/// policy by hand).
public enum PublishedBootKeys {
    /// A published key: the operating system and the device model it signs releases for.
    public struct Entry: Sendable, Equatable {
        public let operatingSystem: String
        public let device: String

        /// "GrapheneOS on Pixel 8".
        public var name: String { "\(operatingSystem) on \(device)" }
    }

    /// The table, by lowercase hex fingerprint.
    public static let all: [String: Entry] = Dictionary(uniqueKeysWithValues: grapheneOS.map { ($0.key, Entry(operatingSystem: "GrapheneOS", device: $0.device)) })

    /// The entry of `fingerprint` (hex, either case), or nil.
    public static func named(_ fingerprint: String) -> Entry? {
        all[fingerprint.lowercased()]
    }

    private static let grapheneOS: [(device: String, key: String)] = [
        ("Pixel 10 Pro Fold", "55a2d44103e56d5ec65496399c417987ba77730e6488fc60ba058d09fc3caee3"),
        ("Pixel 10 Pro XL", "141d7fc32af7958a416f2661b37cf6f27bfb376fb5ce616aeaa27a82c7a04f74"),
        ("Pixel 10 Pro", "4e8ee8f717754052198ca6d2d3aaa232e2461b4293c0d6f297e519cc778de093"),
        ("Pixel 10", "3f7415ea26f5df5b14ea6d153256071a7a1af9ce7b0970b7311cc463c7ea02c7"),
        ("Pixel 9a", "0508de44ee00bfb49ece32c418af1896391abde0f05b64f41bc9a2dfb589445b"),
        ("Pixel 9 Pro Fold", "af4d2c6e62be0fec54f0271b9776ff061dd8392d9f51cf6ab1551d346679e24c"),
        ("Pixel 9 Pro XL", "55d3c2323db91bb91f20d38d015e85112d038f6b6b5738fe352c1a80dba57023"),
        ("Pixel 9 Pro", "f729cab861da1b83fdfab402fc9480758f2ae78ee0b61c1f2137dd1ab7076e86"),
        ("Pixel 9", "9e6a8f3e0d761a780179f93acd5721ba1ab7c8c537c7761073c0a754b0e932de"),
        ("Pixel 8a", "096b8bd6d44527a24ac1564b308839f67e78202185cbff9cfdcb10e63250bc5e"),
        ("Pixel 8 Pro", "896db2d09d84e1d6bb747002b8a114950b946e5825772a9d48ba7eb01d118c1c"),
        ("Pixel 8", "cd7479653aa88208f9f03034810ef9b7b0af8a9d41e2000e458ac403a2acb233"),
        ("Pixel Fold", "ee0c9dfef6f55a878538b0dbf7e78e3bc3f1a13c8c44839b095fe26dd5fe2842"),
        ("Pixel Tablet", "94df136e6c6aa08dc26580af46f36419b5f9baf46039db076f5295b91aaff230"),
        ("Pixel 7a", "508d75dea10c5cbc3e7632260fc0b59f6055a8a49dd84e693b6d8899edbb01e4"),
        ("Pixel 7 Pro", "bc1c0dd95664604382bb888412026422742eb333071ea0b2d19036217d49182f"),
        ("Pixel 7", "3efe5392be3ac38afb894d13de639e521675e62571a8a9b3ef9fc8c44fd17fa1"),
        ("Pixel 6a", "08c860350a9600692d10c8512f7b8e80707757468e8fbfeea2a870c0a83d6031"),
        ("Pixel 6 Pro", "439b76524d94c40652ce1bf0d8243773c634d2f99ba3160d8d02aa5e29ff925c"),
        ("Pixel 6", "f0a890375d1405e62ebfd87e8d3f475f948ef031bbf9ddd516d5f600a23677e8"),
    ]
}
