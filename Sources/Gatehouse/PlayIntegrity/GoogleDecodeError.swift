/// Why a Play Integrity token could not be decoded through Google. Messages say what happened (a status, libcurl's
/// reason) and never carry an access token, the service account's private key or the integrity token.
public enum GoogleDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Google could not be reached, answered 5xx or 429, answered something that is not its API's answer, or did not
    /// answer within the time limit (DEVICE-API: unavailable `googleUnreachable`).
    case googleUnreachable(String)
    /// Google refused the service account: 401/403 from the decode, or the token endpoint refused the grant
    /// (DEVICE-API: unavailable `serviceAccountRejected`).
    case serviceAccountRejected(String)
    /// Google answered 400: the integrity token is not one it can decode (garbage, or not for this package).
    case tokenNotDecodable(status: Int)
    /// The call was not made: the package name is not a valid Android package name.
    case invalidPackageName

    /// The DEVICE-API reason this error stands for: `googleUnreachable`, `serviceAccountRejected`, or for a token
    /// Google cannot decode `decryptionFailed` (forged, as a token the local keys cannot decrypt).
    public var reason: String {
        switch self {
        case .googleUnreachable: "googleUnreachable"
        case .serviceAccountRejected: "serviceAccountRejected"
        case .tokenNotDecodable, .invalidPackageName: "decryptionFailed"
        }
    }

    /// A one-line explanation, safe to log.
    public var description: String {
        switch self {
        case .googleUnreachable(let detail): "Google Play Integrity unreachable: \(detail)"
        case .serviceAccountRejected(let detail): "Google refused the service account: \(detail)"
        case .tokenNotDecodable(let status): "Google could not decode the integrity token (HTTP \(status))"
        case .invalidPackageName: "not a valid Android package name"
        }
    }
}
