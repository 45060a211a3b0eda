import Gatehouse
import HTTP

/// The verdict ingest endpoint (`POST /api/ingest/v1/verdicts`), authenticated by one of the environment's secret
/// keys. A batch is validated whole and stored atomically; `Idempotency-Key` makes a retried batch count once.
struct IngestAPI: Sendable {
    let keys: APIKeys
    let verdicts: Verdicts
    let clock: TimeSource

    func ingest(_ request: Request) throws -> Response {
        guard let presented = request.bearerCredentials else {
            throw DomainError.unauthenticated("send one of the environment's secret keys as Authorization: Bearer sk_…")
        }
        let key = try keys.authenticateSecret(presented)
        var idempotencyKey: String?
        if let value = request.headers["Idempotency-Key"] {
            guard !value.isEmpty, value.utf8.count <= 255 else {
                throw Problem(status: 400, slug: "bad-idempotency-key", title: "Bad Idempotency-Key", detail: "The Idempotency-Key header must be 1 to 255 characters.")
            }
            idempotencyKey = value
        }
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
}
