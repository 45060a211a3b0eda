import Foundation
import Gatehouse
import HTTP
import HTTPServer

/// The OpenAPI 3.1 description of the management API (`Public/openapi.json`), read once at start-up.
struct OpenAPIDocument: Sendable {
    let bytes: [UInt8]?

    static func load(from publicDirectory: String) -> OpenAPIDocument {
        OpenAPIDocument(bytes: FileManager.default.contents(atPath: publicDirectory + "/openapi.json").map { Array($0) })
    }

    func get() throws -> Response {
        guard let bytes else { throw HTTPError(status: 404, detail: "The OpenAPI document is not installed (Public/openapi.json).") }
        return Response(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "no-cache"], body: bytes)
    }
}
