import Attestation
import Crypto
import Gatehouse
import HTTP
import JSON

/// The device endpoints of docs/device-api.md "Challenges" and "App Attest": `POST /api/v4/attestation/challenge`,
/// `/api/v4/attestation/app-attest` and `/api/v4/attestation/app-attest/assertion`. The body names the environment
/// by its public key; a well-formed request is judged (200), never refused; 4xx only for what cannot be judged.
struct DeviceAPI: Sendable {
    let service: AppAttestService
    /// Requests per client address.
    let addressLimiter: RateLimiter
    /// Who sent a request: the key of the per-address limit.
    let clientAddress: ClientAddress
    /// Requests per public key.
    let keyLimiter: RateLimiter

    /// The longest challenge text accepted (issued ones have 43 characters).
    static let maxChallengeLength = 512

    func challenge(_ request: Request) throws -> Response {
        var body = try read(request)
        let apiKey = body.string("apiKey", maxLength: 200, what: "the environment's public key (pk_…)")
        try body.throwIfAny()
        let environment = try authenticate(apiKey ?? "")
        let issued = try service.issueChallenge(for: environment)
        return JSONBody.response(["challenge": .string(issued.challenge), "expiresAt": .string(Timestamp.format(issued.expiresAt))], status: 201)
    }

    func register(_ request: Request) throws -> Response {
        var body = try read(request)
        let apiKey = body.string("apiKey", maxLength: 200, what: "the environment's public key (pk_…)")
        let keyID = body.bytes("keyId", what: "the key id (32 bytes)", exactly: 32)
        let challenge = body.string("challenge", maxLength: Self.maxChallengeLength, what: "the challenge as issued")
        let attestation = body.bytes("attestation", what: "the CBOR attestation object")
        try body.throwIfAny()
        let environment = try authenticate(apiKey ?? "")
        let outcome = try service.register(in: environment, keyID: keyID ?? [], challenge: challenge ?? "", attestation: attestation ?? [])
        return JSONBody.response([
            "verdict": Self.json(outcome.verdict, observed: outcome.observed),
            "keyId": .string(Base64.encode(outcome.keyID)),
            "appId": .optional(outcome.appID),
            "attestationEnvironment": .optional(outcome.attestationEnvironment?.rawValue),
        ])
    }

    func assertion(_ request: Request) throws -> Response {
        var body = try read(request)
        let apiKey = body.string("apiKey", maxLength: 200, what: "the environment's public key (pk_…)")
        let keyID = body.bytes("keyId", what: "the key id", optional: true)
        let clientData = body.bytes("clientData", what: "the exact bytes the app hashed")
        let assertion = body.bytes("assertion", what: "the CBOR assertion {signature, authenticatorData}")
        try body.throwIfAny()
        let environment = try authenticate(apiKey ?? "")
        let outcome = try service.assert(in: environment, keyID: keyID, clientData: clientData ?? [], assertion: assertion ?? [])
        return JSONBody.response([
            "verdict": Self.json(outcome.verdict, observed: outcome.observed),
            "counter": outcome.counter.map { .int(Int64($0)) } ?? .null,
        ])
    }

    /// The body, after the per-address limit (taken before anything is parsed).
    func read(_ request: Request) throws -> DeviceBody {
        if let retry = addressLimiter.take(AddressNetwork.key(clientAddress.of(request))) {
            throw Self.throttled("this address", retryAfter: retry)
        }
        return try DeviceBody(request)
    }

    /// The environment of a public key, after the per-key limit.
    func authenticate(_ apiKey: String) throws -> Environment {
        let (key, environment) = try service.authenticate(apiKey: apiKey)
        if let retry = keyLimiter.take(key.id) {
            throw Self.throttled("this public key", retryAfter: retry)
        }
        return environment
    }

    static func throttled(_ whose: String, retryAfter: Int) -> Problem {
        Problem.throttled("too many requests from \(whose); retry after \(retryAfter) s", retryAfter: retryAfter)
    }

    /// `{"status", "reasons"}`.
    static func json(_ verdict: Verdict) -> JSON {
        ["status": .string(verdict.status.rawValue), "reasons": .array(verdict.reasons.map { .string($0) })]
    }

    /// `{"status", "reasons", "observed"}`, `observed` when something was (docs/device-api.md "App Attest in depth").
    static func json(_ verdict: Verdict, observed: AppAttestObservation) -> JSON {
        guard let observed = observed.json, case .object(var members) = json(verdict) else { return json(verdict) }
        members.append(.init("observed", observed))
        return .object(members)
    }
}
