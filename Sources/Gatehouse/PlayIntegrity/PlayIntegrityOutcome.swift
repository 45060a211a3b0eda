import Attestation

/// What judging one Play Integrity token answers (docs/device-api.md "Play Integrity"): the judgement and who decoded the
/// token.
public struct PlayIntegrityOutcome: Sendable {
    /// Who opened the token: this server with the local keys, or Google with the service account.
    public enum DecodedBy: String, Sendable {
        case local, google
    }

    /// The verdict, the payload (when decoded) and what it said.
    public var judgement: PlayIntegrityJudgement
    /// Who decoded the token; nil when nobody could.
    public var decodedBy: DecodedBy?
}
