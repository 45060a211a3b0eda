import Attestation
import AttestationTesting
import Crypto
import Testing

/// iOS 27's authenticator-data extensions: Apple's example read, the map's strictness, and the policy on
/// registrations and assertions.
@Suite(.serialized) struct ExtensionsTests {
    static let appId = "ABCDE12345.com.example.app"
    static let ca: Result<SyntheticAppAttest, any Error> = Result { try SyntheticAppAttest() }
    static let clientDataHash = SHA256.hash("challenge")

    @Test func applesExampleIsCategoryOneVersionOne() throws {
        let vector = try AttestationVector("apple_example_2026_production.json")
        let result = try Verifiers.apple().verifyAttestation(vector.request, registration: AppAttestRegistration(appIds: [vector.appId], isProduction: true),
                                                             now: vector.validAt)
        #expect(result.verdict == .verified)
        #expect(result.extensions == AppAttestExtensions(validationCategory: ValidationCategory(1), bundleVersion: "1"))
        #expect(result.extensions?.validationCategory?.label == "1")
    }

    @Test func olderObjectsCarryNone() throws {
        let vector = try AttestationVector("warden_ios17_development.json")
        let result = try Verifiers.apple().verifyAttestation(vector.request, registration: AppAttestRegistration(appIds: [vector.appId], isProduction: false),
                                                             now: vector.validAt)
        #expect(result.verdict == .verified)
        #expect(result.extensions == nil)
    }

    @Test(arguments: [
        (UInt32(2), "testFlight"), (3, "development"), (4, "appStore"), (5, "enterprise"), (6, "developerID"), (7, "localSigning"),
        (1, "1"), (10, "10"),
    ]) func categoriesAreNamedOrNumbered(value: UInt32, label: String) {
        #expect(ValidationCategory(value).label == label)
        #expect(ValidationCategory(label: label) == ValidationCategory(value))
    }

    @Test func unknownIdentifiersAreKept() throws {
        let bytes = CBOREncoder.encode(.map([CBOR.Pair(.text("apple_cd_hash_01"), .bytes([1, 2])),
                                             CBOR.Pair(.text(AppAttestExtensions.validationCategoryKey), .unsigned(4))]))
        let extensions = try #require(try AppAttestExtensions.read(bytes))
        #expect(extensions.validationCategory == ValidationCategory(4))
        #expect(extensions.others == [CBOR.Pair(.text("apple_cd_hash_01"), .bytes([1, 2]))])
    }

    @Test(arguments: [
        ("not a map", CBOREncoder.encode(.array([]))),
        ("a number key", CBOREncoder.encode(.map([CBOR.Pair(.unsigned(1), .unsigned(1))]))),
        ("a 3-byte category", CBOREncoder.encode(.map([CBOR.Pair(.text(AppAttestExtensions.validationCategoryKey), .bytes([1, 0, 0]))]))),
        ("a text category", CBOREncoder.encode(.map([CBOR.Pair(.text(AppAttestExtensions.validationCategoryKey), .text("4"))]))),
        ("a numeric bundle version", CBOREncoder.encode(.map([CBOR.Pair(.text(AppAttestExtensions.bundleVersionKey), .unsigned(4))]))),
        ("an empty bundle version", CBOREncoder.encode(.map([CBOR.Pair(.text(AppAttestExtensions.bundleVersionKey), .text(""))]))),
        ("trailing bytes", SyntheticAppAttest.extensions(validationCategory: 4, bundleVersion: "1") + [0]),
        ("cut short", Array(SyntheticAppAttest.extensions(validationCategory: 4, bundleVersion: "1").dropLast())),
    ] as [(String, [UInt8])]) func outOfShapeIsRefused(_ label: String, bytes: [UInt8]) {
        #expect(throws: AppAttestFormatError.self, "\(label)") { try AppAttestExtensions.read(bytes) }
    }

    @Test(arguments: [("4.10", "4.9", false), ("4.9", "4.10", true), ("4.2", "4.2.0", false), ("4.2", "4.2.1", true),
                      ("10", "9", false), ("1.0b", "1.0a", false), ("1.0a", "1.0b", true)])
    func bundleVersionsCompareNumerically(version: String, minimum: String, below: Bool) {
        #expect(BundleVersion.isBelow(version, minimum: minimum) == below)
    }

    // MARK: the policy on synthetic objects

    func attest(category: UInt32?, version: String?, policy: AppAttestPolicy) throws -> AttestationResult {
        var tweaks = SyntheticAppAttest.Tweaks()
        tweaks.authDataExtension = SyntheticAppAttest.extensions(validationCategory: category, bundleVersion: version)
        let ca = try Self.ca.get()
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: tweaks)
        return AppAttestVerifier(roots: ca.roots).verifyAttestation(
            AttestationRequest(attestation: key.attestation, keyId: key.keyId, clientDataHash: Self.clientDataHash),
            registration: AppAttestRegistration(appIds: [Self.appId], isProduction: true, policy: policy), now: key.validAt)
    }

    static let storeOnly = AppAttestPolicy(validationCategories: [ValidationCategory(4), ValidationCategory(2)])

    @Test func aListedCategoryIsVerified() throws {
        let result = try attest(category: 4, version: "4.2", policy: Self.storeOnly)
        #expect(result.verdict == .verified)
        #expect(result.extensions?.validationCategory?.name == "appStore")
        #expect(result.extensions?.bundleVersion == "4.2")
    }

    @Test func anUnlistedCategoryIsRejectedByName() throws {
        #expect(try attest(category: 3, version: "4.2", policy: Self.storeOnly).verdict == Verdict(status: .rejected, reasons: ["validationCategory:development"]))
        #expect(try attest(category: 9, version: nil, policy: Self.storeOnly).verdict == Verdict(status: .rejected, reasons: ["validationCategory:9"]))
    }

    @Test func noCategoryPassesUnlessRequired() throws {
        #expect(try attest(category: nil, version: nil, policy: Self.storeOnly).verdict == .verified)
        var required = Self.storeOnly
        required.requireValidationCategory = true
        #expect(try attest(category: nil, version: nil, policy: required).verdict == Verdict(status: .rejected, reasons: ["validationCategoryMissing"]))
    }

    @Test func aBundleVersionBelowTheMinimumIsRejected() throws {
        let policy = AppAttestPolicy(minimumBundleVersion: "4.10")
        #expect(try attest(category: 4, version: "4.9", policy: policy).verdict == Verdict(status: .rejected, reasons: ["bundleVersion:4.9"]))
        #expect(try attest(category: 4, version: "4.10.1", policy: policy).verdict == .verified)
        #expect(try attest(category: nil, version: nil, policy: policy).verdict == .verified)
    }

    @Test func anUndecodableMapIsForged() throws {
        var tweaks = SyntheticAppAttest.Tweaks()
        tweaks.authDataExtension = [0xA1, 0x61]  // a map whose key is cut short
        let ca = try Self.ca.get()
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: tweaks)
        let result = AppAttestVerifier(roots: ca.roots).verifyAttestation(
            AttestationRequest(attestation: key.attestation, keyId: key.keyId, clientDataHash: Self.clientDataHash),
            registration: AppAttestRegistration(appIds: [Self.appId], isProduction: true), now: key.validAt)
        #expect(result.verdict == Verdict(reasons: [.attestationInvalid]))
    }

    @Test func assertionsCarryThemToo() throws {
        let ca = try Self.ca.get()
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash)
        let verifier = AppAttestVerifier(roots: ca.roots)
        let registration = AppAttestRegistration(appIds: [Self.appId], isProduction: true,
                                                 policy: AppAttestPolicy(validationCategories: [ValidationCategory(4)], riskMetricAbove: 5))
        func judge(_ extensions: [UInt8], riskMetric: Int? = nil) throws -> AssertionResult {
            var state = key.state()
            state.riskMetric = riskMetric
            return verifier.verifyAssertion(AssertionRequest(assertion: try key.assertion(counter: 1, clientDataHash: [7], extensions: extensions),
                                                             clientDataHash: [7]), key: state, registration: registration)
        }
        let store = try judge(SyntheticAppAttest.extensions(validationCategory: 4, bundleVersion: "2.0"))
        #expect(store.verdict == .verified)
        #expect(store.extensions?.bundleVersion == "2.0")
        #expect(try judge(SyntheticAppAttest.extensions(validationCategory: 2, bundleVersion: "2.0")).verdict
                    == Verdict(status: .rejected, reasons: ["validationCategory:testFlight"]))
        #expect(try judge([0xA1]).verdict == Verdict(reasons: [.assertionInvalid]))
        // The risk metric: at the bound passes, above it is rejected.
        #expect(try judge([], riskMetric: 5).verdict == .verified)
        #expect(try judge([], riskMetric: 6).verdict == Verdict(status: .rejected, reasons: ["riskMetricHigh"]))
    }
}
