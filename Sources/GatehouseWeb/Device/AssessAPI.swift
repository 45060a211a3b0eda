import Attestation
import Gatehouse
import HTTP
import JSON

/// `POST /api/v4/assess` (docs/device-api.md "Assessment"): one signed request judged whole, answered with its receipt.
/// A well-formed request is judged (200), never refused; 400 names each unreadable field by pointer; 401 for an
/// unknown public key; 413 over 64 KiB; 429 over the rate limits.
struct AssessAPI: Sendable {
    let service: AssessService
    let appAttest: AppAttestService
    let addressLimiter: RateLimiter
    /// Who sent a request: the key of the per-address limit.
    let clientAddress: ClientAddress
    let keyLimiter: RateLimiter

    func assess(_ request: Request) throws -> Response {
        if let retry = addressLimiter.take(AddressNetwork.key(clientAddress.of(request))) {
            throw DeviceAPI.throttled("this address", retryAfter: retry)
        }
        let envelope = try AssessEnvelope(try Self.body(request))
        let (key, environment) = try appAttest.authenticate(apiKey: envelope.apiKey)
        if let retry = keyLimiter.take(key.id) {
            throw DeviceAPI.throttled("this public key", retryAfter: retry)
        }
        let assessment = try service.assess(envelope.request, apiKey: envelope.apiKey, in: environment, address: clientAddress.of(request))
        return JSONBody.response(Self.json(assessment), headers: ["Cache-Control": "no-store"])
    }

    /// The body as JSON. Over 64 KiB it is refused (413) — save when what makes it too large is `signed`, which is
    /// named by pointer (400), as every unreadable field is. The server's own body limit bounds what is parsed.
    /// - Throws: `Problem` 400, 413 or 415.
    static func body(_ request: Request) throws -> JSON {
        guard request.body.count > DeviceBody.maxBytes else {
            return try DeviceBody(request).json
        }
        if let json = try? JSONBody.read(request), let signed = json["signed"]?.string, signed.utf8.count > AssessEnvelope.maxSignedBytes {
            throw AssessEnvelope.problem([FieldError("/signed", "must be at most \(AssessEnvelope.maxSignedBytes) bytes; this one has \(signed.utf8.count)")])
        }
        throw Problem(status: 413, slug: "body-too-large", title: "Body too large",
                      detail: "Device requests are at most \(DeviceBody.maxBytes) bytes; this one has \(request.body.count).")
    }

    /// The answer: `{requestId, attestation, tampering, attackMode, sessionToken, receiptBound}`.
    static func json(_ assessment: Assessment) -> JSON {
        let attestation: JSON = assessment.attestation.map { result in
            var members: [JSON.Member] = [.init("provider", .string(result.provider)), .init("status", .string(result.verdict.status.rawValue)),
                                          .init("reasons", .array(result.verdict.reasons.map { .string($0) }))]
            // The dialog that would fix a Play Integrity failure (docs/device-api.md "The dialog that would fix it").
            if result.provider == Provider.playIntegrity, let remediation = PlayIntegrityRemediation(result.verdict) {
                members.append(.init("remediation", remediation.json))
            }
            return .object(members)
        } ?? .null
        return [
            "requestId": .string(assessment.requestID),
            "attestation": attestation,
            "tampering": ["result": .bool(!assessment.tampering.isEmpty), "reasons": .array(assessment.tampering.map { .string($0) }),
                          "evidenceSigned": true],
            "attackMode": .string(assessment.attackMode.rawValue),
            "sessionToken": .string(assessment.sessionToken),
            "receiptBound": .bool(assessment.receiptBound),
        ]
    }
}
