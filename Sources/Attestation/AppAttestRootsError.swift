/// Why App Attest roots cannot be loaded: a message for the operator (it names no secret).
public struct AppAttestRootsError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
