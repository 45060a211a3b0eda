import Attestation
import AttestationTesting
import Crypto
import JSON

/// One app's Play Integrity setup for a test: random keys, a registration of `com.example.app` with one certificate,
/// a request, a verification time, and a payload that passes every check.
struct PlayIntegrityScene {
    static let packageName = "com.example.app"
    static let requestHash = "2f1c0a7d4e5b6c8a9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e"
    static let now: Int64 = 1_790_000_000_000

    let minter: PlayIntegrityMinter
    let decoder: PlayIntegrityDecoder
    let certificate: [UInt8]
    var registration: PlayIntegrityRegistration
    var request = PlayIntegrityRequest(packageName: Self.packageName, requestHash: Self.requestHash)
    var payload: PlayIntegrityPayloadTemplate
    let evaluator = PlayIntegrityEvaluator()

    init(outsidePlay: Bool = false) throws {
        minter = try PlayIntegrityMinter.random()
        decoder = PlayIntegrityDecoder(keys: try minter.keys())
        certificate = try SecureRandom.bytes(32)
        registration = PlayIntegrityRegistration(apps: [
            AndroidAppRegistration(packageName: Self.packageName, certificateDigests: [try SecureRandom.bytes(32), certificate],
                                   outsidePlay: outsidePlay),
            AndroidAppRegistration(packageName: "com.example.other", certificateDigests: [try SecureRandom.bytes(32)]),
        ])
        payload = PlayIntegrityPayloadTemplate(packageName: Self.packageName, certificateDigest: certificate,
                                               requestHash: Self.requestHash, timestampMillis: Self.now - 5_000)
    }

    /// Mints the current payload and judges the token end to end.
    func judge(seenBefore: Bool = false) throws -> PlayIntegrityJudgement {
        try judge(token: minter.token(payload.json), seenBefore: seenBefore)
    }

    /// Judges a token end to end.
    func judge(token: String, seenBefore: Bool = false) -> PlayIntegrityJudgement {
        evaluator.judge(token: Array(token.utf8), decoder: decoder, registration: registration, request: request,
                        now: Self.now, seenBefore: seenBefore)
    }

    /// Judges the current payload as already decoded (as Google's answer is).
    func evaluate(seenBefore: Bool = false) -> PlayIntegrityJudgement {
        evaluator.evaluate(payload: payload.json, registration: registration, request: request, now: Self.now, seenBefore: seenBefore)
    }
}
