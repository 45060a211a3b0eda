/// When App Attest receipts are traded for fresh ones (`--app-attest-refresh`).
public enum AppleReceiptRefreshMode: String, Sendable {
    /// Each active key once a day, in the background, on one server of a cluster.
    case background
    /// Only through `POST …/app-attest/refresh-receipts` (tests, operators who schedule their own).
    case manual
}
