import HTTP
import HTTPServer

extension Request {
    /// A path parameter the router filled in; a missing one is a routing bug, answered as 404.
    func parameter(_ name: String) throws -> String {
        guard let value = pathParameters[name], !value.isEmpty else {
            throw HTTPError(status: 404, detail: "No such resource.")
        }
        return value
    }
}

