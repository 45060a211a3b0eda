/// A state change that could not be committed for a reason of its own (not SQLite's): the request is not answered
/// with a judgement, and nothing of it was written.
public struct WriteConflict: Error, CustomStringConvertible, Sendable {
    public let description: String

    /// A conflict described in words for the log (never for the client).
    public init(_ description: String) {
        self.description = description
    }
}
