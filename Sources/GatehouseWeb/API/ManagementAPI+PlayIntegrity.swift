import Attestation
import Gatehouse
import HTTP
import JSON

extension ManagementAPI {
    /// `POST /environments/{id}/play-integrity/check` (read scope): tries candidate local keys on the environment's
    /// recent failures without saving anything → `{"tried", "decrypted", "verified", "packages"}`; keys that cannot
    /// be Play keys → 400 naming each field by pointer.
    func checkPlayIntegrityKeys(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        let environment = try domain.environments.get(try request.parameter("environmentId"))
        let keys: PlayIntegrityKeys
        do {
            keys = try PlayIntegrityFields.candidateKeys(try JSONBody.read(request))
        } catch let error as ValidationError {
            // Not keys at all: the request cannot be tried (400), as docs/device-api.md's malformed fields.
            throw Problem.malformedRequest(error.errors, "not a Play key")
        }
        let result = try domain.keyCheck.run(environmentID: environment.id, keys: keys)
        return JSONBody.response(result.json)
    }

    /// `GET /environments/{id}/play-integrity/usage` (read scope): today's tokens per package and calls to Google
    /// against the daily quota, by Pacific day (Google's) → `{"day", "tokens", "googleDecodes", "dailyQuota"}`.
    func playIntegrityUsage(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .read)
        return JSONBody.response(try domain.environments.playIntegrityUsage(try request.parameter("environmentId")).json)
    }
}
