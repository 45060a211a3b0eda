import Attestation
import AttestationTesting
import Crypto
import JSON
import Testing

/// `outsidePlay` (seed 003): a build signed with a registered certificate is not held to UNRECOGNIZED_VERSION nor
/// unlicensed; a copy signed by anyone else still is, and the device is held to integrity all the same.
@Suite struct PlayIntegrityOutsidePlayTests {
    @Test func excusesUnrecognizedVersionAndUnlicensedForARegisteredCertificate() throws {
        var scene = try PlayIntegrityScene(outsidePlay: true)
        scene.payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION"
        scene.payload.appLicensingVerdict = "UNLICENSED"
        #expect(try scene.judge().verdict == .verified)
        #expect(scene.evaluate().verdict == .verified)
    }

    @Test func theSameVerdictIsRejectedWithoutOutsidePlay() throws {
        var scene = try PlayIntegrityScene(outsidePlay: false)
        scene.payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION"
        scene.payload.appLicensingVerdict = "UNLICENSED"
        #expect(try scene.judge().verdict == Verdict(status: .rejected, reasons: ["appVerdict:UNRECOGNIZED_VERSION", "unlicensed"]))
    }

    @Test func neverExcusesAnotherCertificate() throws {
        var scene = try PlayIntegrityScene(outsidePlay: true)
        scene.payload.certificateDigests = [try SecureRandom.bytes(32)]
        scene.payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION"
        scene.payload.appLicensingVerdict = "UNLICENSED"
        #expect(try scene.judge().verdict == Verdict(status: .rejected, reasons: [
            "certificateMismatch", "appVerdict:UNRECOGNIZED_VERSION", "unlicensed",
        ]))
    }

    @Test func neverExcusesTheDeviceNorOtherAppVerdicts() throws {
        var scene = try PlayIntegrityScene(outsidePlay: true)
        scene.payload.appRecognitionVerdict = "UNEVALUATED"
        scene.payload.deviceRecognitionVerdict = ["MEETS_BASIC_INTEGRITY"]
        #expect(try scene.judge().verdict == Verdict(status: .rejected, reasons: ["appVerdict:UNEVALUATED", "basicIntegrityOnly"]))
    }

    @Test func excusesOnlyThePackageMarkedOutsidePlay() throws {
        var scene = try PlayIntegrityScene(outsidePlay: false)
        let other = try SecureRandom.bytes(32)
        scene.registration.apps.append(AndroidAppRegistration(packageName: "com.example.sideload", certificateDigests: [other], outsidePlay: true))
        scene.payload.appRecognitionVerdict = "UNRECOGNIZED_VERSION"
        #expect(try scene.judge().verdict.reasons == ["appVerdict:UNRECOGNIZED_VERSION"])
        scene.payload.packageName = "com.example.sideload"
        scene.payload.certificateDigests = [other]
        scene.request.packageName = "com.example.sideload"
        #expect(try scene.judge().verdict == .verified)
    }
}
