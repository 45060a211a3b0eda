// libFuzzer target for the CBOR decoder, the App Attest parsers and verifier, the receipt reader (CMS through
// OpenSSL, then the receipt's fields) and the iOS 27 extension map. The corpus seeds real objects and receipts from the
// shared App Attest vectors (their sources and licences: Tests/AttestationTests/Fixtures/NOTICE.md). Built with `-DFUZZING` and
// `--sanitize=fuzzer` (see `make fuzz-attest`), libFuzzer supplies `main` and calls `LLVMFuzzerTestOneInput`; in a
// plain build the `main` below replays files (a crash input or the committed corpus) through the same checks.
import Attestation
import Crypto
import FuzzReplay

/// Small limits, so that short inputs reach every limit path; and the defaults.
let smallDecoder = CBORDecoder(limits: CBORLimits(maxDepth: 6, maxItems: 48, maxBytes: 2048))
let defaultDecoder = CBORDecoder()

/// Apple's root, and a registration and key that the corpus's real objects (Apple's 2024 example, bas-d's
/// assertion) match, so mutations of them get past decoding into every check.
let verifier: AppAttestVerifier? = (try? AppAttestRoots.apple()).map { AppAttestVerifier(roots: $0) }
let registration = AppAttestRegistration(appIds: ["0352187391.com.apple.example_app_attest", "35MFYY2JY5.co.chiff.attestation-test"],
                                         isProduction: true)
let keyId = Base64.decode("bSrEhF8TIzIvWSPwvZ0i2+UOBre4ASH84rK15m6emNY=") ?? []
let clientDataHash = Array("test_server_challenge".utf8)
let assertionPoint = "0437c404fa2bbf8fbcf4ee7080573d5fa80c4f6cc3a22f7db43af92c394e7cd1c8"
    + "80c95ab422972625e8e673af1bda2b096654e9b602895601f925bb5941c53082"
let assertionKey: AttestedKeyState? = Hex.decode(assertionPoint)
    .flatMap { try? ECPublicKey(x962: $0) }
    .map { AttestedKeyState(publicKey: $0, appId: "35MFYY2JY5.co.chiff.attestation-test", environment: .production,
                            counter: CounterWindow(newest: 1, seenBelow: 0)) }
let assertionClientDataHash = SHA256.hash(Array("{\"challenge\":\"assertion-test\"}".utf8))
/// Apple Root CA - G3, and an expectation the corpus's real receipts (warden's iOS 16 production object) meet at its
/// time, so mutations of them get past the CMS into every field check.
let receiptReader: AppAttestReceiptReader? = (try? AppAttestRoots.appleReceipts()).map { AppAttestReceiptReader(roots: $0) }
let receiptExpectation = AppAttestReceiptExpectation(type: AppAttestReceipt.attestType, appId: "9CYHJNG644.at.asitplus.attestation-client")
let receiptTime: Int64 = 1_681_394_560

/// libFuzzer's entry point: runs every check on one input; any broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

func check(_ bytes: [UInt8]) {
    for decoder in [smallDecoder, defaultDecoder] {
        let whole = Result { () throws(CBORError) in try decoder.decode(bytes) }
        if case .failure(let error) = whole {
            precondition(error.offset >= 0 && error.offset <= bytes.count, "error offset outside the input")
        }
        if !bytes.isEmpty, let (item, end) = try? decoder.decodePrefix(bytes, from: 0) {
            precondition(end > 0 && end <= bytes.count, "prefix end outside the input")
            if case .success(let value) = whole {
                // NaN floats are unequal to themselves: compare descriptions.
                precondition(end == bytes.count && (value == item || "\(value)" == "\(item)"), "decode and decodePrefix disagree")
            }
        }
    }
    _ = try? AuthenticatorData(bytes, requireCredential: true)
    _ = try? AuthenticatorData(bytes, requireCredential: false)
    _ = try? AttestationObject(bytes)
    _ = try? AssertionObject(bytes)
    checkExtensions(bytes)
    if let receiptReader {
        for expectation in [receiptExpectation, .refreshed(appId: receiptExpectation.appId ?? "", attestedKey: [])] {
            let receipt = receiptReader.check(bytes, expecting: expectation, at: receiptTime)
            precondition(receipt.isValid == receipt.reasons.isEmpty, "validity and reasons disagree")
            precondition(Set(receipt.reasons).count == receipt.reasons.count, "a reason given twice")
            precondition(receipt.receipt != nil || receipt.reasons.contains(.malformed), "no fields and not malformed")
            precondition(!receipt.isValid || receipt.receipt?.type == expectation.type, "valid with another type")
        }
    }
    guard let verifier else { return }
    let attestation = verifier.verifyAttestation(AttestationRequest(attestation: bytes, keyId: keyId, clientDataHash: clientDataHash),
                                                 registration: registration, now: 1_713_398_400)
    checkVerdict(attestation.verdict)
    if let assertionKey {
        let assertion = verifier.verifyAssertion(AssertionRequest(assertion: bytes, clientDataHash: assertionClientDataHash),
                                                 key: assertionKey, registration: registration)
        checkVerdict(assertion.verdict)
        precondition((assertion.newWindow != nil) == (assertion.verdict.status == .verified), "a window without a verdict")
    }
}

/// The extension map: nothing for no bytes; a map read is bounded and typed.
func checkExtensions(_ bytes: [UInt8]) {
    switch Result(catching: { () throws(AppAttestFormatError) in try AppAttestExtensions.read(bytes) }) {
    case .success(let extensions):
        precondition((extensions == nil) == bytes.isEmpty, "extensions from no bytes, or none from some")
        precondition((extensions?.bundleVersion?.utf8.count ?? 0) <= AppAttestExtensions.maxBundleVersionBytes, "an oversized bundle version")
    case .failure:
        precondition(!bytes.isEmpty, "no bytes refused")
    }
}

/// A verdict is verified exactly when it has no reasons.
func checkVerdict(_ verdict: Verdict) {
    precondition((verdict.status == .verified) == verdict.reasons.isEmpty, "status and reasons disagree")
}

#if !FUZZING
/// Replays the files named on the command line through the checks (no fuzzing engine).
@main
struct AttestationFuzzReplay {
    static func main() {
        replay(arguments: CommandLine.arguments.dropFirst()) { check($0) }
    }
}
#endif
