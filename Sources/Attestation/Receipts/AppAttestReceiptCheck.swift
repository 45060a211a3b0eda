/// The outcome of reading a receipt: what it says, as far as it could be read, and why it is not accepted.
public struct AppAttestReceiptCheck: Sendable, Equatable {
    /// The fields, when the content could be read (even when the signature or chain failed: say what it claims).
    public var receipt: AppAttestReceipt?
    /// Empty when accepted; otherwise every reason found, in the reader's order.
    public var reasons: [AppAttestReceiptReason]

    /// Whether the receipt is accepted.
    public var isValid: Bool { reasons.isEmpty }

    /// A check with `receipt` and `reasons`.
    public init(receipt: AppAttestReceipt?, reasons: [AppAttestReceiptReason]) {
        self.receipt = receipt
        self.reasons = reasons
    }
}
