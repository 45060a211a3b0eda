/// Why the master key could not be loaded, with what to do about it. Never contains key material.
public struct MasterKeyError: Error, Sendable, CustomStringConvertible {
    /// A sentence naming the source (variable or file) and the fix.
    public let message: String

    /// Creates an error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
