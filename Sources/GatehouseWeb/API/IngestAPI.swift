import Gatehouse
import HTTP

/// The ingest endpoints (`POST /api/ingest/v1/verdicts`, and `…/enforcement` for backends' outcomes), authenticated by one of the environment's secret
/// keys. A batch is validated whole and stored atomically; `Idempotency-Key` makes a retried batch count once.
struct IngestAPI: Sendable {
    let keys: APIKeys
    let verdicts: Verdicts
    let outcomes: EnforcementOutcomes
    let clock: TimeSource

    func ingest(_ request: Request) throws -> Response {
        guard let presented = request.bearerCredentials else {
            throw DomainError.unauthenticated("send one of the environment's secret keys as Authorization: Bearer sk_…")
        }
        let key = try keys.authenticateSecret(presented)
        let idempotencyKey = try Self.idempotencyKey(request)
        let now = clock()
        let batch: [TrafficVerdict]
        if JSONBody.mediaType(request) == "application/json", let read = VerdictBatch.parse(body: request.body, now: now) {
            batch = read  // the common case, read straight from the bytes
        } else {
            batch = try VerdictBatch.parse(try JSONBody.read(request), now: now)  // anything else, and the errors
        }
        let accepted = try verdicts.ingest(batch, environmentID: key.environmentID, idempotencyKey: idempotencyKey)
        return JSONBody.response(["accepted": .int(accepted)], status: 202)
    }

    /// The `Idempotency-Key` header (1 to 255 characters), if sent.
    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let value = request.headers["Idempotency-Key"] else { return nil }
        guard !value.isEmpty, value.utf8.count <= 255 else {
            throw Problem(status: 400, slug: "bad-idempotency-key", title: "Bad Idempotency-Key", detail: "The Idempotency-Key header must be 1 to 255 characters.")
        }
        return value
    }
}

extension IngestAPI {
    /// `POST /api/ingest/v1/enforcement`: a backend middleware's counts by route, outcome and hour, once per
    /// `Idempotency-Key`.
    func ingestEnforcement(_ request: Request) throws -> Response {
        guard let presented = request.bearerCredentials else {
            throw DomainError.unauthenticated("send one of the environment's secret keys as Authorization: Bearer sk_…")
        }
        let key = try keys.authenticateSecret(presented)
        let idempotencyKey = try Self.idempotencyKey(request)
        let counts: [ReportedOutcomes]
        do {
            counts = try ReportedOutcomes.parse(try JSONBody.read(request), now: clock())
        } catch let error as ValidationError {
            throw Problem.badRequest(error.errors)
        }
        let accepted = try outcomes.ingest(counts, environmentID: key.environmentID, idempotencyKey: idempotencyKey)
        return JSONBody.response(["accepted": .int(accepted)], status: 202)
    }
}
