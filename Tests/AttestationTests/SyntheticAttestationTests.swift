import Attestation
import AttestationTesting
import Crypto
import Testing

/// Attestations from a synthetic CA made with OpenSSL, each check failing on its own.
@Suite(.serialized) struct SyntheticAttestationTests {
    static let appId = "ABCDE12345.com.example.app"
    static let clientDataHash = SHA256.hash("challenge-1")
    static let registration = AppAttestRegistration(appIds: ["VWXYZ67890.com.example.other", appId], isProduction: true)

    let ca: SyntheticAppAttest
    let verifier: AppAttestVerifier

    init() throws {
        ca = try SyntheticAppAttest()
        verifier = AppAttestVerifier(roots: ca.roots)
    }

    func verify(_ key: SyntheticKey, keyId: [UInt8]? = nil, clientDataHash: [UInt8] = clientDataHash,
                registration: AppAttestRegistration = registration, now: Int64? = nil) -> AttestationResult {
        verifier.verifyAttestation(AttestationRequest(attestation: key.attestation, keyId: keyId ?? key.keyId, clientDataHash: clientDataHash),
                                   registration: registration, now: now ?? key.validAt)
    }

    @Test func aGenuineAttestationVerifies() throws {
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash)
        let result = verify(key)
        #expect(result.verdict == .verified)
        #expect(result.keyId == key.keyId)
        #expect(result.appId == Self.appId)
        #expect(result.environment == .production)
        #expect(result.publicKey?.x962 == key.publicKey.x962)
        // Its receipt is the synthetic receipt signing's, for this key and app.
        let receipts = try #require(ca.receipts)
        let check = AppAttestReceiptReader(roots: receipts.roots)
            .check(try #require(result.receipt), expecting: .attestation(appId: Self.appId, attestedKey: key.publicKey.x962), at: key.validAt)
        #expect(check.reasons == [])
        #expect(check.receipt?.clientHash == Self.clientDataHash)
        // Apple's root does not know this CA.
        let apple = try Verifiers.apple().verifyAttestation(
            AttestationRequest(attestation: key.attestation, keyId: key.keyId, clientDataHash: Self.clientDataHash),
            registration: Self.registration, now: key.validAt)
        #expect(apple.verdict == Verdict(reasons: [.certificateChainInvalid]))
    }

    @Test func eachCheckFailsOnItsOwn() throws {
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash)
        #expect(verify(key, clientDataHash: SHA256.hash("challenge-2")).verdict == Verdict(reasons: [.nonceMismatch]))
        #expect(verify(key, keyId: SHA256.hash("another key")).verdict == Verdict(reasons: [.keyIdMismatch]))
        let elsewhere = AppAttestRegistration(appIds: ["VWXYZ67890.com.example.other"], isProduction: true)
        let unregistered = verify(key, registration: elsewhere)
        #expect(unregistered.verdict == Verdict(reasons: [.appIdNotRegistered]))
        #expect(unregistered.appId == nil)
        #expect(verify(key, registration: AppAttestRegistration(appIds: [], isProduction: true)).verdict
            == Verdict(status: .unavailable, reasons: ["notConfigured"]))
        #expect(verify(key, now: key.notAfter + 1).verdict == Verdict(reasons: [.certificateChainInvalid]))
        #expect(verify(key, now: key.validAt - 86_400 * 365).verdict == Verdict(reasons: [.certificateChainInvalid]))
        let otherCA = AppAttestVerifier(roots: try SyntheticAppAttest().roots)
        let foreign = otherCA.verifyAttestation(AttestationRequest(attestation: key.attestation, keyId: key.keyId, clientDataHash: Self.clientDataHash),
                                                registration: Self.registration, now: key.validAt)
        #expect(foreign.verdict == Verdict(reasons: [.certificateChainInvalid]))
    }

    @Test func aDevelopmentKeyIsRejectedInProductionOnly() throws {
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, environment: .development)
        let production = verify(key)
        #expect(production.verdict == Verdict(reasons: [.developmentKey]))
        #expect(production.environment == .development)
        let development = verify(key, registration: AppAttestRegistration(appIds: [Self.appId], isProduction: false))
        #expect(development.verdict == .verified)
        #expect(development.environment == .development)
    }

    @Test func forgeriesHideTheSetupReasons() throws {
        // A forged object for an unregistered app in production, from a development key: only the forgery counts.
        let key = try ca.attest(appId: "QQQQQQQQQQ.com.example.unknown", clientDataHash: Self.clientDataHash, environment: .development)
        #expect(verify(key, clientDataHash: []).verdict == Verdict(reasons: [.nonceMismatch]))
        #expect(verify(key).verdict == Verdict(reasons: [.appIdNotRegistered, .developmentKey]))
    }

    @Test func malformedFieldsAreAttestationInvalid() throws {
        var wrongFormat = SyntheticAppAttest.Tweaks()
        wrongFormat.fmt = "packed"
        var counted = SyntheticAppAttest.Tweaks()
        counted.signCount = 1
        for tweaks in [wrongFormat, counted] {
            let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: tweaks)
            #expect(verify(key).verdict == Verdict(reasons: [.attestationInvalid]))
        }
    }

    @Test func authDataAndCertificateMustAgree() throws {
        var credential = SyntheticAppAttest.Tweaks()
        credential.credentialId = [UInt8](repeating: 7, count: 32)
        // The certificate vouches for the tweaked authData (its nonce covers it), but the credential is not the key.
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: credential)
        #expect(verify(key).verdict == Verdict(reasons: [.keyIdMismatch]))
        // rpIdHash names another app id than the one Apple certified on the leaf: forged.
        var rp = SyntheticAppAttest.Tweaks()
        rp.rpId = "VWXYZ67890.com.example.other"
        let other = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: rp)
        #expect(verify(other).verdict == Verdict(reasons: [.attestationInvalid]))
        #expect(verify(other).attestedAppId == nil)
        // Both name the other app id: genuine, and learnt as attested.
        var both = rp
        both.certifiedAppId = "VWXYZ67890.com.example.other"
        let moved = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: both)
        #expect(verify(moved).appId == "VWXYZ67890.com.example.other")
        #expect(verify(moved).attestedAppId == "VWXYZ67890.com.example.other")
    }

    @Test func theAttestedAppIdIsReadFromTheLeafOnceTheChainVerifies() throws {
        let key = try ca.attest(appId: "WRONG12345.com.example.app", clientDataHash: Self.clientDataHash)
        let result = verify(key)
        #expect(result.verdict == Verdict(reasons: [.appIdNotRegistered]))
        #expect(result.appId == nil)
        #expect(result.attestedAppId == "WRONG12345.com.example.app")
        // A leaf without the extension (no real one lacks it) is judged as before, and names nothing.
        var bare = SyntheticAppAttest.Tweaks()
        bare.certifiedAppId = ""
        #expect(verify(try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: bare)).verdict == .verified)
    }

    @Test func theNonceExtensionIsReadStrictly() throws {
        let nonce = Hex.encode([UInt8](repeating: 0xAB, count: 32), uppercase: true)
        let shapes = [
            "3024A1220420" + nonce + "00",             // a byte after the SEQUENCE
            "3023A1210420" + String(nonce.dropLast(2)), // 31-byte nonce
            "3024A2220420" + nonce,                     // [2] instead of [1]
            "3024A1220320" + nonce,                     // BIT STRING instead of OCTET STRING
            "30818024A1220420" + nonce,                 // non-minimal long-form length
            "3026A1220420" + nonce + "0500",            // a second element in the SEQUENCE
            "04200000",                                 // not a SEQUENCE
        ]
        for shape in shapes {
            var tweaks = SyntheticAppAttest.Tweaks()
            tweaks.nonceExtensionDER = shape
            guard let key = try? ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: tweaks) else {
                continue  // openssl refused to encode the shape at all
            }
            #expect(verify(key).verdict == Verdict(reasons: [.nonceMismatch]), "\(shape.prefix(16))")
        }
        var omitted = SyntheticAppAttest.Tweaks()
        omitted.omitNonce = true
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: omitted)
        #expect(verify(key).verdict == Verdict(reasons: [.nonceMismatch]))
    }

    @Test func extensionBytesAfterTheCOSEKeyAreTolerated() throws {
        var tweaks = SyntheticAppAttest.Tweaks()
        tweaks.authDataExtension = CBOREncoder.encode(.map([CBOR.Pair(.text("apple_bundle_version_01"), .text("1"))]))
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: tweaks)
        #expect(verify(key).verdict == .verified)
    }

    @Test func longChainsGetAVerdictQuickly() throws {
        var tweaks = SyntheticAppAttest.Tweaks()
        let intermediate = try Certificate(pem: ca.rootPEM).der
        tweaks.extraCertificates = [[UInt8]](repeating: intermediate, count: 48)
        let key = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: tweaks)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(verify(key).verdict == Verdict(reasons: [.certificateChainInvalid]))
        #expect(clock.now - start < .seconds(5), "a long chain is refused by its length, not walked")  // milliseconds in practice
        var two = SyntheticAppAttest.Tweaks()
        two.extraCertificates = [intermediate, intermediate]
        let four = try ca.attest(appId: Self.appId, clientDataHash: Self.clientDataHash, tweaks: two)
        #expect(verify(four).verdict == .verified)
    }
}
