// libFuzzer target for Android key attestation: the key description reader and the chain verifier. An input is read
// two ways: whole, as a key description (the attestation extension's value), and as a chain of certificates, each
// a 2-byte big-endian length then that many DER bytes (a last element that runs short takes the rest). The corpus
// seeds the real devices' chains and their key descriptions from Google's android/keyattestation test data (sources
// and licence: Tests/AttestationTests/Fixtures/keyattestation/LICENSE, Tests/AttestationTests/Fixtures/NOTICE.md).
// Built with `-DFUZZING` and `--sanitize=fuzzer` (`make fuzz-keyattest`), libFuzzer supplies `main` and calls
// `LLVMFuzzerTestOneInput`; in a plain build the `main` below replays files through the same checks.
import Attestation
import Crypto
import FuzzReplay

/// Google's roots, and a policy that lets mutations of the real chains reach every check.
let verifier: KeyAttestationVerifier? = (try? KeyAttestationRoots.google()).map { KeyAttestationVerifier(roots: $0) }
let policy: KeyAttestationPolicy = {
    var policy = KeyAttestationPolicy()
    policy.enabled = true
    policy.minimumPatchLevel = 202_001
    policy.minimumVersionCode = ["com.google.android.attestation": 1]
    return policy
}()
let apps = [KeyAttestationVerifier.RegisteredApp(packageName: "com.google.android.attestation", digests: [Array(repeating: 0, count: 32)])]
let statusList = KeyAttestationStatusList(entries: ["1": .revoked, "2": .suspended])

/// libFuzzer's entry point: runs every check on one input; any broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

func check(_ bytes: [UInt8]) {
    if let description = try? KeyDescription(der: bytes) {
        precondition(bytes.count <= KeyDescription.maxBytes, "an oversized description read")
        precondition(description.softwareEnforced.unknownTags.allSatisfy { $0 > 0 }, "a tag number that is not positive")
    }
    guard let verifier else { return }
    let chain = certificates(bytes)
    for (list, apps) in [(statusList, apps), (nil, nil)] as [(KeyAttestationStatusList?, [KeyAttestationVerifier.RegisteredApp]?)] {
        let result = verifier.verify(chain: chain, challenge: Array("challenge".utf8), policy: policy, apps: apps, statusList: list,
                                     at: 1_750_000_000)
        precondition((result.verdict.status == .verified) == result.verdict.reasons.isEmpty, "status and reasons disagree")
        precondition(Set(result.verdict.reasons).count == result.verdict.reasons.count, "a reason given twice")
        precondition(!result.verdict.isVerified || result.publicKey != nil, "verified without a key")
        precondition(result.serials.count <= chain.count, "more serials than certificates")
    }
}

/// The input as length-prefixed certificates.
func certificates(_ bytes: [UInt8]) -> [[UInt8]] {
    var chain: [[UInt8]] = []
    var rest = bytes[...]
    while rest.count >= 2, chain.count < 12 {
        let length = Int(rest[rest.startIndex]) << 8 | Int(rest[rest.startIndex + 1])
        rest = rest.dropFirst(2)
        chain.append(Array(rest.prefix(length)))
        rest = rest.dropFirst(length)
    }
    return chain
}

#if !FUZZING
/// Replays the files named on the command line through the checks (no fuzzing engine).
@main
struct KeyAttestationFuzzReplay {
    static func main() {
        replay(arguments: CommandLine.arguments.dropFirst()) { check($0) }
    }
}
#endif
