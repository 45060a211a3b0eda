import HTTP
import Testing
@testable import HTTPServer

@Suite("Router")
struct RouterTests {
    struct Boom: Error, CustomStringConvertible {
        var description: String { "database password is hunter2" }
    }

    struct Conflict: HTTPResponseError {
        var status: Int { 409 }
    }

    static func text(_ value: String) -> Router.Handler {
        { _ in Response(status: 200, contentType: "text/plain", body: value) }
    }

    static func sample() -> Router {
        var router = Router()
        router.get("/api/management/v1/environments/{environmentId}") { request in
            Response(status: 200, contentType: "text/plain", body: "env " + (request.pathParameters["environmentId"] ?? "-"))
        }
        router.patch("/api/management/v1/environments/{environmentId}", text("patched"))
        router.get("/api/management/v1/environments/new", text("literal"))
        router.post("/api/management/v1/environments", text("created"))
        router.get("/", text("home"))
        router.get("/static/{path...}") { request in
            Response(status: 200, contentType: "text/plain", body: request.pathParameters["path"] ?? "-")
        }
        router.get("/boom") { _ in throw Boom() }
        router.get("/conflict") { _ in throw Conflict() }
        return router
    }

    func respond(_ router: Router, _ method: String, _ target: String, logger: Logger = .discard) -> Response {
        var request = Request(method: method, target: target)
        request.id = "req123"
        return router.respond(to: request, logger: logger)
    }

    @Test(arguments: [
        ("GET", "/api/management/v1/environments/env_1", 200, "env env_1"),
        ("GET", "/api/management/v1/environments/new", 200, "literal"),
        ("GET", "/api/management/v1/environments/a%20b%2Fc", 200, "env a b/c"),
        ("GET", "/api/management/v1/environments/caf%C3%A9?x=1", 200, "env café"),
        ("GET", "/", 200, "home"),
        ("GET", "/static/css/site.css", 200, "css/site.css"),
        ("PATCH", "/api/management/v1/environments/e", 200, "patched"),
    ])
    func matchesRoutes(method: String, target: String, status: Int, body: String) {
        let response = respond(Self.sample(), method, target)
        #expect(response.status == status)
        #expect(String(decoding: response.body, as: UTF8.self) == body)
    }

    @Test(arguments: ["/nope", "/api/management/v1", "/api/management/v1/environments/e/extra", "*", ""])
    func unknownPathsAre404(target: String) {
        let response = respond(Self.sample(), "GET", target)
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/problem+json")
    }

    @Test func otherMethodsAre405WithSortedAllow() {
        let response = respond(Self.sample(), "DELETE", "/api/management/v1/environments/e")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, PATCH")
        let collection = respond(Self.sample(), "GET", "/api/management/v1/environments")
        #expect(collection.headers["Allow"] == "POST")
    }

    @Test(arguments: ["/api/management/v1/environments/%zz", "/api/management/v1/environments/%C3", "/x%4"])
    func malformedPercentEncodingIs400(target: String) {
        #expect(respond(Self.sample(), "GET", target).status == 400)
    }

    @Test func headFallsBackToGet() {
        let response = respond(Self.sample(), "HEAD", "/")
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "home")  // the serializer drops it
    }

    @Test func plainErrorsBecome500WithTheRequestIDAndNoText() {
        let lines = Recorder()
        let response = respond(Self.sample(), "GET", "/boom", logger: Logger { lines.append($0) })
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == 500)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(body.contains("\"requestId\":\"req123\""))
        #expect(!body.contains("hunter2"))
        #expect(lines.all.count == 1 && lines.all[0].contains("hunter2") && lines.all[0].contains("req123"))
    }

    @Test func responseErrorsBecomeTheirResponse() {
        let response = respond(Self.sample(), "GET", "/conflict")
        #expect(response.status == 409)
        #expect(String(decoding: response.body, as: UTF8.self).contains("\"title\":\"Conflict\""))
    }

    @Test func middlewareRunsInOrderOutermostFirst() {
        var router = Self.sample()
        router.use { request, next in
            var response = try next(request)
            response.headers.add("X-Order", "outer")
            return response
        }
        router.use { request, next in
            var response = try next(request)
            response.headers.add("X-Order", "inner")
            return response
        }
        let found = respond(router, "GET", "/")
        #expect(found.headers.values("X-Order") == ["inner", "outer"])
        let missing = respond(router, "GET", "/missing")
        #expect(missing.status == 404)
        #expect(missing.headers.values("X-Order") == ["inner", "outer"])
        // The frozen responder wraps each route once at build time; same order, same coverage.
        let responder = router.responder(logger: .discard)
        #expect(responder(Request(method: "GET", target: "/")).headers.values("X-Order") == ["inner", "outer"])
        #expect(responder(Request(method: "GET", target: "/boom")).headers.values("X-Order") == ["inner", "outer"])
        #expect(responder(Request(method: "PUT", target: "/")).headers.values("X-Order") == ["inner", "outer"])
    }

    @Test func middlewareCanShortCircuitAndSeeParameters() {
        var router = Self.sample()
        router.use { request, next in
            if request.pathParameters["environmentId"] == "locked" { throw HTTPError(status: 403) }
            return try next(request)
        }
        #expect(respond(router, "GET", "/api/management/v1/environments/locked").status == 403)
        #expect(respond(router, "GET", "/api/management/v1/environments/open").status == 200)
    }

    @Test func routesListsMethodAndPattern() {
        let routes = Self.sample().routes
        #expect(routes.count == 8)
        #expect(routes.contains(Router.Route(method: "PATCH", pattern: "/api/management/v1/environments/{environmentId}")))
        #expect(routes.first == Router.Route(method: "GET", pattern: "/api/management/v1/environments/{environmentId}"))
    }

    @Test(arguments: [
        ("/", [String]?.some([])),
        ("/a/b", ["a", "b"]),
        ("/a/b?x=/c", ["a", "b"]),
        ("/a//b/", ["a", "", "b", ""]),
        ("/caf%C3%A9#frag", ["caf%C3%A9"]),
        ("http://example.com/a/b?q", ["a", "b"]),
        ("http://example.com", []),
        ("*", nil),
        ("", nil),
        ("?x", nil),
    ])
    func splitsTargetsIntoRawSegments(target: String, expected: [String]?) {
        #expect(RoutePattern.pathSegments(of: target)?.map(String.init) == expected)
    }

    @Test func queryHelpersDecode() {
        let request = Request(method: "GET", target: "/x?name=a+b&empty&n=%C3%A9&name=second&bad=%zz")
        #expect(request.queryValue("name") == "a b")
        #expect(request.queryValue("n") == "é")
        #expect(request.queryValue("empty") == "")
        #expect(request.queryValue("bad") == nil)
        #expect(request.queryItems.map(\.name) == ["name", "empty", "n", "name"])
        #expect(Request(method: "GET", target: "/x").queryItems.isEmpty)
    }

    @Test func aThrownErrorOverTheSocketIs500WithRequestID() throws {
        let server = try startServer(responder: Self.sample().responder(logger: .discard))
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        try client.send("GET /boom HTTP/1.1\r\nHost: x\r\n\r\nHEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        let reply = try client.readResponse()
        #expect(reply.status == 500)
        #expect(reply.text.contains("\"requestId\":\""))
        #expect(!reply.text.contains("hunter2"))
        let head = try client.readResponse(head: true)
        #expect(head.status == 200 && head.headers["Content-Length"] == "4")
        client.setTimeout(0.2)
        #expect(throws: TestClient.Failure.timedOut) { try client.readResponse() }  // no body bytes followed
    }
}
