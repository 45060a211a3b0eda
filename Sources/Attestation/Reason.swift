/// One reason of a verdict with the kind it implies, e.g. `Reason(.forged, "nonceMismatch")`. Codes are seed 003's
/// vocabulary as docs/device-api.md lists them; the App Attest ones are the static members of `Reason+AppAttest.swift`.
public struct Reason: Sendable, Equatable, Hashable {
    /// The verdict kind this reason implies (never `verified`).
    public var kind: VerdictStatus
    /// The reason code as it goes over the wire, e.g. "counterReused".
    public var code: String

    /// A reason of `kind` with wire code `code`.
    public init(_ kind: VerdictStatus, _ code: String) {
        self.kind = kind
        self.code = code
    }
}
