import TestSupport
import Attestation
import Crypto
import Testing

/// Every public attestation vector verifies at its validAt, and each of its expectedFailures fails with the right
/// reason.
@Suite struct AttestationVectorTests {
    static let files = Fixtures.files(kind: "attestation")
    /// "The current date" of the vectors' notes, pinned: every leaf has expired by then.
    static let currentDate: Int64 = 1_796_083_200  // 2026-12-01T00:00:00Z

    @Test func thereAreTwentyAttestations() {
        #expect(Self.files.count == 20)
    }

    @Test(arguments: files) func clientDataHashFollowsItsDerivation(file: String) throws {
        let vector = try AttestationVector(file)
        #expect(try vector.derivedClientDataHash() == vector.clientDataHash)
    }

    @Test(arguments: files) func verifiesAtValidAt(file: String) throws {
        let vector = try AttestationVector(file)
        let registration = AppAttestRegistration(appIds: ["ABCDE12345.com.example.other", vector.appId],
                                                 isProduction: vector.environment == .production)
        let result = try Verifiers.apple().verifyAttestation(vector.request, registration: registration, now: vector.validAt)
        #expect(result.verdict == .verified, "\(file): \(result.verdict)")
        #expect(result.appId == vector.appId)
        // Every real Apple leaf certifies its app id (extension 1.2.840.113635.100.8.5).
        #expect(result.attestedAppId == vector.appId, "\(file)")
        #expect(result.environment == vector.environment)
        #expect(result.keyId == vector.keyId)
        #expect(result.publicKey?.x962 == vector.x962)
        #expect(result.receipt?.isEmpty == false)
    }

    @Test(arguments: files) func expectedFailuresFailForTheirReason(file: String) throws {
        let vector = try AttestationVector(file)
        let production = vector.environment == .production
        let registered = AppAttestRegistration(appIds: [vector.appId], isProduction: production)
        for (condition, expected) in vector.expectedFailures {
            var request = vector.request
            var registration = registered
            var now = vector.validAt
            let want: Verdict
            if condition.hasPrefix("verify at the current date") {
                now = Self.currentDate
                want = Verdict(reasons: [.certificateChainInvalid])
            } else if condition.hasPrefix("verify at ") {
                now = try Fixtures.instant(in: condition)
                want = Verdict(reasons: [.certificateChainInvalid])
            } else if condition.hasPrefix("appId with a different") {
                let (team, bundle) = try #require(vector.appId.split(separator: ".", maxSplits: 1).map(String.init).pair)
                registration.appIds = ["ZZZZZZZZZZ." + bundle, team + ".com.example.other"]
                want = Verdict(reasons: [.appIdNotRegistered])
                // What the phone attested is still learnt: an admin sees the app id to register.
                let learnt = try Verifiers.apple().verifyAttestation(request, registration: registration, now: now)
                #expect(learnt.attestedAppId == vector.appId, "\(file)")
            } else if condition.hasPrefix("any other challenge") {
                request.clientDataHash = SHA256.hash("another challenge")
                want = Verdict(reasons: [.nonceMismatch])
            } else if condition == "environment set to production" {
                registration.isProduction = true
                want = Verdict(reasons: [.developmentKey])
            } else if condition == "environment set to development" {
                // docs/device-api.md: a development environment accepts keys of both kinds (the sources' "aaguid mismatch"
                // is a per-environment check we do not make); the key is still reported as production.
                registration.isProduction = false
                want = .verified
            } else {
                Issue.record("\(file): unknown condition \(condition) (\(expected))")
                continue
            }
            let result = try Verifiers.apple().verifyAttestation(request, registration: registration, now: now)
            #expect(result.verdict == want, "\(file): \(condition): \(result.verdict)")
            #expect(result.environment == vector.environment)
        }
    }

    @Test(arguments: files) func aWrongKeyIdIsKeyIdMismatch(file: String) throws {
        let vector = try AttestationVector(file)
        var request = vector.request
        request.keyId = SHA256.hash(request.keyId)
        let registration = AppAttestRegistration(appIds: [vector.appId], isProduction: false)
        let result = try Verifiers.apple().verifyAttestation(request, registration: registration, now: vector.validAt)
        #expect(result.verdict == Verdict(reasons: [.keyIdMismatch]))
        #expect(result.keyId == vector.keyId)
    }

    @Test func noAppIdRegisteredIsNotConfigured() throws {
        let vector = try AttestationVector("apple_example_2026_production.json")
        let result = try Verifiers.apple().verifyAttestation(vector.request, registration: AppAttestRegistration(appIds: [], isProduction: true),
                                                     now: vector.validAt)
        #expect(result.verdict == Verdict(status: .unavailable, reasons: ["notConfigured"]))
        #expect(result.environment == .production)
    }

    @Test func anotherRootIsCertificateChainInvalid() throws {
        let vector = try AttestationVector("warden_ios16_production.json")
        let receiptRoot = AppAttestVerifier(roots: try AppAttestRoots(pem: try Fixtures.text("apple_root_ca_g3.pem")))
        let result = receiptRoot.verifyAttestation(vector.request, registration: AppAttestRegistration(appIds: [vector.appId], isProduction: true),
                                                   now: vector.validAt)
        #expect(result.verdict == Verdict(reasons: [.certificateChainInvalid]))
    }

    @Test func theBuiltInRootIsApples() throws {
        let roots = try AppAttestRoots.apple()
        #expect(roots.isApple)
        let shared = try AppAttestRoots(pem: try appleAppAttestationRootPEM())
        #expect(shared.certificates.map(\.der) == roots.certificates.map(\.der))
        #expect(roots.certificates.first?.subject == "ST=California,O=Apple Inc.,CN=Apple App Attestation Root CA")
        #expect(!(try AppAttestRoots(pem: try Fixtures.text("apple_root_ca_g3.pem"))).isApple)
        #expect(throws: AppAttestRootsError.self) { try AppAttestRoots(pem: "not a certificate") }
    }
}

extension Array {
    /// The two elements of a two-element array.
    var pair: (Element, Element)? { count == 2 ? (self[0], self[1]) : nil }
}
