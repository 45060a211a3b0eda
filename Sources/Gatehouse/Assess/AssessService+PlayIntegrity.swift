import Attestation

extension AssessService {
    /// Play Integrity: the token judged for `signed.app.id` with requestHash = lowercase hex SHA-256 of the canonical
    /// string, by the Play Integrity service (which spends the token and records the verdict into traffic).
    /// - Throws: `DatabaseError` when its state cannot be committed.
    func judgePlayIntegrity(token: String, request: AssessRequest, canonical: String, environment: Environment) throws -> Attestation.Verdict {
        try playIntegrity.judge(in: environment, packageName: request.appID, requestHash: CanonicalRequest.requestHash(canonical: canonical),
                                token: token).judgement.verdict
    }
}
