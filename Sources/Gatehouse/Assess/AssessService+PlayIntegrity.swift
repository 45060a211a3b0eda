import Attestation
import SQLite

extension AssessService {
    /// Play Integrity: the token judged for `signed.app.id` with requestHash = lowercase hex SHA-256 of the canonical
    /// string, by the Play Integrity service (which spends the token and records the verdict into traffic), with the
    /// nonce (when given) committed first, in the same transaction. Nil when the nonce was spent before: then nothing
    /// else was committed or recorded.
    /// - Throws: `DatabaseError` when its state cannot be committed.
    func judgePlayIntegrity(token: String, spending nonce: NonceToSpend?, request: AssessRequest, canonical: String,
                            environment: Environment) throws -> Attestation.Verdict? {
        var spend: (@Sendable (Connection) throws -> Bool)?
        if let nonce { spend = { db in try nonce.spend(db) } }
        var first = FirstChange(spend)
        do {
            return try playIntegrity.judge(in: environment, packageName: request.appID,
                                           requestHash: CanonicalRequest.requestHash(canonical: canonical), token: token,
                                           first: &first).judgement.verdict
        } catch is FirstChange.Refused {
            return nil
        }
    }
}
