import Attestation
import Crypto
import Gatehouse
import HTTP
import JSON

/// `POST /api/v4/attestation/key-attestation` (docs/device-api.md "Android Key Attestation"): the same body limit, rate
/// limits, public-key authentication and 400-by-pointer as the App Attest endpoints; a well-formed request is judged
/// (200) `{"verdict", "keyId", "observed"}`: certificates that do not decode are `forged` `chainMalformed`, not a 400.
struct KeyAttestationAPI: Sendable {
    let device: DeviceAPI
    let service: KeyAttestationService

    func register(_ request: Request) throws -> Response {
        var body = try device.read(request)
        let apiKey = body.string("apiKey", maxLength: 200, what: "the environment's public key (pk_…)")
        let challenge = body.string("challenge", maxLength: DeviceAPI.maxChallengeLength, what: "the challenge as issued")
        var chain: [[UInt8]] = []
        if case .array(let elements)? = body.json["certificateChain"] {
            for (i, element) in elements.enumerated() {
                guard let text = element.string, !text.isEmpty, let der = Base64.decode(text) else {
                    body.reject("certificateChain/\(i)", "must be a DER certificate as a non-empty base64 string")
                    continue
                }
                chain.append(der)
            }
        } else {
            body.reject("certificateChain", "must be an array of base64 DER certificates, the key's first")
        }
        try body.throwIfAny()
        let environment = try device.authenticate(apiKey ?? "")
        let result = try service.register(in: environment, challenge: challenge ?? "", chain: chain)
        return JSONBody.response(result.json)
    }
}
