import Attestation

extension AssessService {
    /// Play Integrity: the token judged for `signed.app.id` with requestHash = lowercase hex SHA-256 of the canonical
    /// string, by the Play Integrity service (which spends the token and records the verdict into traffic), after
    /// `first`, in the same transaction.
    /// - Throws: `NonceSpend.Refused` when `first` refused (nothing else committed or recorded); `StorageError`.
    func judgePlayIntegrity(token: String, nonce: inout NonceSpend, request: AssessRequest, canonical: String,
                            environment: Environment, address: String?) throws -> Verdict {
        try playIntegrity.judge(in: environment, packageName: request.appID, requestHash: CanonicalRequest.requestHash(canonical: canonical),
                                token: token, address: address, nonce: &nonce).judgement.verdict
    }
}
