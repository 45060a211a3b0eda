import Gatehouse
import GatehouseWeb
import HTTP
import HTTPServer
import Testing

/// A change that could not be committed this moment (`WriteConflict`: a counter window that kept moving) is transient
/// like a busy database: `503` with `Retry-After`, never a `500`, and its words for the log never reach the client.
@Suite("Write conflicts")
struct WriteConflictTests {
    @Test func aWriteConflictAnswers503WithRetryAfter() throws {
        var router = Router()
        router.add("POST", "/conflict") { _ in throw WriteConflict("the counter window of key k kept moving") }
        let respond = router.responder(logger: Logger(minimumLevel: .error, accessLog: false) { _ in })
        let response = respond(Request(method: "POST", target: "/conflict", headers: Headers(), body: []))
        #expect(response.status == 503)
        #expect(response.headers["Retry-After"] == "1")
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(!String(decoding: response.body, as: UTF8.self).contains("counter window"))
    }
}
