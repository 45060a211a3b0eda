import Attestation
import Crypto
import Foundation
import Testing

/// The Android key attestation verifier held to real devices' chains (Google's `android/keyattestation` test data,
/// Fixtures/keyattestation) under Google's pinned roots: each verifies for its documented challenge, app and boot
/// state (the Sony Xperia 10 III factory chain, whose attestation-key certificate is marked CA:FALSE, among them; the
/// Pixel chains under the 2026 root "Key Attestation CA1" and under the RSA root), and each mutation is refused for
/// its reason.
@Suite("Android key attestation verifier")
struct KeyAttestationVerifierTests {
    /// A real chain with what Google documents beside it.
    struct Device {
        let name: String
        let chain: [[UInt8]]
        let challenge: [UInt8]
        let app: KeyAttestationVerifier.RegisteredApp
        let bootState: String
        let bootKey: [UInt8]
        let locked: Bool
        /// A time within every certificate's validity that the verifier checks (Remote Key Provisioning's intermediates).
        let now: Int64

        init(_ name: String) throws {
            self.name = name
            let certificates = try Certificate.chain(pem: try Fixtures.text("keyattestation/\(name).pem"))
            chain = certificates.map(\.der)
            let doc = try KeyDescriptionTests.documented(name)
            challenge = try #require(KeyDescriptionTests.bytes(doc["attestationChallenge"]))
            let software = try #require(doc["softwareEnforced"] as? [String: Any])
            let application = try #require(software["attestationApplicationId"] as? [String: Any])
            let package = try #require((application["packages"] as? [[String: Any]])?.first?["name"] as? String)
            app = .init(packageName: package, digests: (application["signatures"] as? [String] ?? []).compactMap { Base64.decode($0) })
            let root = (doc["hardwareEnforced"] as? [String: Any])?["rootOfTrust"] as? [String: Any] ?? [:]
            bootState = root["verifiedBootState"] as? String ?? "none"
            bootKey = KeyDescriptionTests.bytes(root["verifiedBootKey"]) ?? []
            locked = root["deviceLocked"] as? Bool ?? false
            now = certificates.dropFirst().map(\.notBefore).max().map { $0 + 60 } ?? 0
        }

        /// The policy this device passes: on, boot key accepted when self-signed, lock required only when locked.
        var policy: KeyAttestationPolicy {
            var policy = KeyAttestationPolicy()
            policy.enabled = true
            policy.requireLocked = locked
            policy.bootKeys = [Hex.encode(bootKey)]
            return policy
        }

        func verify(_ chain: [[UInt8]]? = nil, challenge: [UInt8]? = nil, policy: KeyAttestationPolicy? = nil,
                    apps: [KeyAttestationVerifier.RegisteredApp]? = nil, statusList: KeyAttestationStatusList? = .init(entries: [:]),
                    roots: KeyAttestationRoots? = nil) throws -> KeyAttestationResult {
            KeyAttestationVerifier(roots: try roots ?? KeyAttestationRoots.google())
                .verify(chain: chain ?? self.chain, challenge: challenge ?? self.challenge, policy: policy ?? self.policy,
                        apps: apps ?? [app], statusList: statusList, at: now)
        }
    }

    @Test func googlesRootsArePinnedByTheirTwoKeys() throws {
        let roots = try KeyAttestationRoots.google()
        #expect(roots.keys.count == 2)
        #expect(roots.isGoogle)
    }

    /// The hardware-backed chains (the Pixel XL's of Android 10 is a software attestation: below).
    static let hardwareChains = KeyDescriptionTests.chains.filter { $0 != "marlin_sdk29_TEE_EC_NONE" }

    @Test(arguments: hardwareChains)
    func realChainsVerifyForTheirChallengeAppAndBoot(_ name: String) throws {
        let device = try Device(name)
        let result = try device.verify()
        let expected = ["UNVERIFIED", "FAILED"].contains(device.bootState) ? ["bootUnverified"] : []
        #expect(result.verdict.reasons == expected, "\(name)")
        #expect(result.keyID != nil)
        #expect(result.observed.root != nil)
        #expect(result.observed.revocation == "good")
        #expect(result.observed.packages.first?.name == device.app.packageName)
    }

    @Test func theTwoRootsAndBothProvisioningKindsAreSeen() throws {
        let observed = try Self.hardwareChains.map { try Device($0).verify().observed }
        #expect(Set(observed.compactMap(\.root)).count == 2, "chains under both Google roots")
        #expect(Set(observed.compactMap(\.provisioning)) == ["rkp", "factory"])
    }

    /// A software attestation (a Pixel XL on Android 10 whose attestation security level is SOFTWARE, without a root
    /// of trust) is forged whatever else holds.
    @Test func aSoftwareAttestationIsForged() throws {
        let verdict = try Device("marlin_sdk29_TEE_EC_NONE").verify().verdict
        #expect(verdict.status == .forged && verdict.reasons.contains("softwareKey"), "\(verdict)")
    }

    @Test func mutationsAreRefusedForTheirReasons() throws {
        let device = try Device("tegu_sdk36_TEE_EC_2026_ROOT")
        var flipped = device.chain
        flipped[0][flipped[0].count - 1] ^= 0x01
        #expect(try device.verify(flipped).verdict == Verdict(status: .forged, reasons: ["chainInvalid"]))
        // Another phone's genuine key certificate inserted as the issuer of this one.
        let other = try Device("caiman_sdk36_TEE_EC_RKP")
        let extended = [device.chain[0]] + other.chain
        let refused = try device.verify(extended).verdict
        #expect(refused.status == .forged && refused.reasons.contains("chainInvalid") && refused.reasons.contains("chainExtended"), "\(refused)")
        #expect(try device.verify(challenge: Array("another challenge".utf8)).verdict.reasons == ["challengeInvalid"])
        #expect(try device.verify([device.chain[0]]).verdict.reasons == ["chainMalformed"])
        #expect(try device.verify([device.chain[0], [0x30, 0x00]]).verdict.reasons == ["chainMalformed"])
        let unrelated = try KeyAttestationRoots(pem: try Fixtures.text("apple_root_ca_g3.pem"))
        #expect(try device.verify(roots: unrelated).verdict.reasons == ["chainInvalid"])
    }

    @Test func theListAndThePolicyJudgeWhatTheChainSays() throws {
        let device = try Device("tegu_sdk36_TEE_EC_2026_ROOT")
        let intermediate = try #require(try Certificate(der: device.chain[1]).serialHex)
        let revoked = KeyAttestationStatusList(entries: [intermediate: .revoked])
        #expect(try device.verify(statusList: revoked).verdict.reasons == ["certificateRevoked"])
        #expect(try device.verify(statusList: .init(entries: [intermediate: .suspended])).verdict.reasons == ["certificateSuspended"])
        var observe = device.policy
        observe.revocation = .observe
        let observed = try device.verify(policy: observe, statusList: revoked)
        #expect(observed.verdict.isVerified && observed.observed.revocation == "revoked")
        #expect(try device.verify(statusList: nil).observed.revocation == "unknown")

        #expect(try device.verify(apps: [.init(packageName: "com.example.other", digests: device.app.digests)]).verdict.reasons == ["appIdMismatch"])
        #expect(try device.verify(apps: [.init(packageName: device.app.packageName, digests: [[UInt8](repeating: 7, count: 32)])]).verdict.reasons
                == ["certificateMismatch"])
        var strict = device.policy
        strict.securityLevel = .strongBox
        strict.minimumPatchLevel = 203_001
        strict.minimumVersionCode = [device.app.packageName: 4200]
        #expect(try device.verify(policy: strict).verdict.reasons == ["securityLevel:tee", "patchLevel:2026-02", "versionCode:0"])
        var off = device.policy
        off.enabled = false
        #expect(try device.verify(policy: off).verdict == Verdict(status: .rejected, reasons: ["keyAttestationDisabled"]))

        let unlocked = try Device("blueline_sdk28_TEE_EC_NONE")
        var locked = unlocked.policy
        locked.requireLocked = true
        #expect(try unlocked.verify(policy: locked).verdict.reasons == ["bootUnverified", "bootloaderUnlocked"])
    }
}
