import Attestation
import Gatehouse
import HTTP
import JSON

/// `POST /api/v4/attestation/play-integrity` (docs/device-api.md "Play Integrity"): the same body limit, rate limits,
/// public-key authentication and 400-by-pointer as the App Attest endpoints; a well-formed request is judged (200)
/// `{"verdict", "decodedBy", "observed"}`.
struct PlayIntegrityAPI: Sendable {
    let device: DeviceAPI
    let service: PlayIntegrityService

    /// The longest `requestHash` accepted (an app's request hash or classic nonce).
    static let maxRequestHashLength = 512
    /// The longest token accepted (the decoder bounds it again).
    static let maxTokenLength = 32 * 1024

    func judge(_ request: Request) throws -> Response {
        var body = try device.read(request)
        let apiKey = body.string("apiKey", maxLength: 200, what: "the environment's public key (pk_…)")
        let packageName = body.string("packageName", maxLength: 255, what: "the Android package name the token is for")
        let requestHash = body.string("requestHash", maxLength: Self.maxRequestHashLength,
                                      what: "what the app passed as requestHash (or as nonce for a classic request)")
        let token = body.string("token", maxLength: Self.maxTokenLength, what: "the integrity token")
        if let packageName, !PackageName.isValid(packageName) { body.reject("packageName", "must be " + PackageName.expectation) }
        try body.throwIfAny()
        let environment = try device.authenticate(apiKey ?? "")
        let outcome = try service.judge(in: environment, packageName: packageName ?? "", requestHash: requestHash ?? "", token: token ?? "",
                                        address: device.clientAddress.of(request))
        var answer: [JSON.Member] = [
            .init("verdict", DeviceAPI.json(outcome.judgement.verdict)),
            .init("decodedBy", .optional(outcome.decodedBy?.rawValue)),
            .init("observed", outcome.judgement.observed.json),
        ]
        if let remediation = outcome.judgement.remediation { answer.append(.init("remediation", remediation.json)) }
        return JSONBody.response(.object(answer))
    }
}
