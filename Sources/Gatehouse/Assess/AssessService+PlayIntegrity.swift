import Attestation

extension AssessService {
    /// Play Integrity: the token judged for `signed.app.id` with requestHash = hex SHA-256 of the canonical string.
    func judgePlayIntegrity(token: String, request: AssessRequest, canonical: String, environment: Environment,
                            now: Int64) throws -> Attestation.Verdict {
        let verdict = Attestation.Verdict.of(.notConfigured)
        record(verdict, proof: .playIntegrity(token: token), request: request, environment: environment, observed: [:], at: now)
        return verdict
    }
}
