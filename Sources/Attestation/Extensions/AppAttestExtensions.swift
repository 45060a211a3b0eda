/// The extensions App Attest appends to authenticator data from iOS 27 (in attestations and assertions, with the
/// ED flag clear): a CBOR map by identifier, read strictly and bounded. The two Apple defines are typed; any other
/// identifier is kept as it is.
public struct AppAttestExtensions: Sendable, Equatable {
    /// `apple_validation_category_01`: how the launched binary was signed.
    public var validationCategory: ValidationCategory?
    /// `apple_bundle_version_01`: the app's bundle version.
    public var bundleVersion: String?
    /// Other identifiers, in the order sent.
    public var others: [CBOR.Pair]

    /// The identifier of the validation category.
    public static let validationCategoryKey = "apple_validation_category_01"
    /// The identifier of the bundle version.
    public static let bundleVersionKey = "apple_bundle_version_01"
    /// Bounds: a small flat-ish map.
    public static let cborLimits = CBORLimits(maxDepth: 4, maxItems: 64, maxBytes: 4096)
    /// The longest bundle version read (Apple's are a few dot-separated numbers).
    public static let maxBundleVersionBytes = 64

    /// Reads the bytes after the fixed part or the COSE key; nil when there are none (iOS 26 and earlier).
    ///
    /// - Throws: ``AppAttestFormatError`` when the bytes are not exactly one CBOR map with text keys within the
    ///   bounds, or a known identifier's value is of the wrong shape.
    public static func read(_ bytes: [UInt8]) throws(AppAttestFormatError) -> AppAttestExtensions? {
        guard !bytes.isEmpty else { return nil }
        let root: CBOR
        do {
            root = try CBORDecoder(limits: cborLimits).decode(bytes)
        } catch {
            throw AppAttestFormatError("authData extensions", error)
        }
        guard let pairs = root.mapPairs else { throw AppAttestFormatError("authData extensions: not a CBOR map") }
        var extensions = AppAttestExtensions(validationCategory: nil, bundleVersion: nil, others: [])
        for pair in pairs {
            guard let key = pair.key.textString else { throw AppAttestFormatError("authData extensions: a key is not text") }
            switch key {
            case validationCategoryKey:
                switch pair.value {
                case .bytes(let bytes) where bytes.count == 4:
                    extensions.validationCategory = ValidationCategory(bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) })
                case .unsigned(let number) where number <= UInt64(UInt32.max):
                    extensions.validationCategory = ValidationCategory(UInt32(number))
                default:
                    throw AppAttestFormatError("authData extensions: \(key) is not 4 bytes nor a 32-bit number")
                }
            case bundleVersionKey:
                guard let text = pair.value.textString, !text.isEmpty, text.utf8.count <= maxBundleVersionBytes else {
                    throw AppAttestFormatError("authData extensions: \(key) is not text of 1 to \(maxBundleVersionBytes) bytes")
                }
                extensions.bundleVersion = text
            default:
                extensions.others.append(pair)
            }
        }
        return extensions
    }

    /// An extension map of the two Apple identifiers.
    public init(validationCategory: ValidationCategory?, bundleVersion: String?, others: [CBOR.Pair] = []) {
        self.validationCategory = validationCategory
        self.bundleVersion = bundleVersion
        self.others = others
    }
}
