/// What a receipt tells the app's backend to do with the call it comes with (docs/device-api.md "Receipts").
public enum ReceiptAction: String, Sendable, Equatable, CaseIterable {
    /// Let the call through.
    case allow
    /// Attack mode, and the phone brought no verified attestation: hold the call.
    case challenge
}
