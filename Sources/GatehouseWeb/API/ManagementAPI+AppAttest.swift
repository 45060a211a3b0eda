import Gatehouse
import HTTP
import JSON

extension ManagementAPI {
    /// `POST /environments/{id}/app-attest/refresh-receipts` (write scope): one pass of the receipt refresher for the
    /// environment now → `{"tried", "refreshed", "unchanged", "noData", "refused", "failed"}`. An environment without a
    /// DeviceCheck key, or whose key Apple refused, tries nothing (the tally says 0; the checklist says why).
    func refreshReceipts(_ request: Request) throws -> Response {
        _ = try domain.tokens.actor(of: request, scope: .write)
        let environment = try domain.environments.get(try request.parameter("environmentId"))
        return JSONBody.response(try domain.receiptRefresher.refresh(environmentID: environment.id).json)
    }
}
