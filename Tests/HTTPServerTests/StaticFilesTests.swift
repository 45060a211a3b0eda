import Glibc
import HTTP
import Testing
@testable import HTTPServer

@Suite("Static files")
final class StaticFilesTests {
    let base: String
    let root: String
    let router: Router

    init() throws {
        var template = Array("/tmp/gatehouse-static-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }
        base = try #require(made.map { String(cString: $0) })
        root = base + "/Public"
        mkdir(root, 0o755)
        mkdir(root + "/css", 0o755)
        mkdir(root + "/.hidden", 0o755)
        try Self.write(root + "/css/site.css", "body{color:red}")
        try Self.write(root + "/app.js", "let a=1")
        try Self.write(root + "/logo.svg", "<svg/>")
        try Self.write(root + "/font.woff2", "w")
        try Self.write(root + "/data.bin", "?")
        try Self.write(root + "/.hidden/secret", "hidden")
        try Self.write(base + "/outside.txt", "secret outside the root")
        symlink(base + "/outside.txt", root + "/escape.txt")
        symlink(root + "/css/site.css", root + "/inside.css")
        var router = Router()
        router.get("/static/{path...}", StaticFiles(root: root, maxAge: 600).handler)
        self.router = router
    }

    deinit {
        for path in ["/Public/css/site.css", "/Public/app.js", "/Public/logo.svg", "/Public/font.woff2",
                     "/Public/data.bin", "/Public/.hidden/secret", "/outside.txt", "/Public/escape.txt",
                     "/Public/inside.css"] { unlink(base + path) }
        for dir in ["/Public/css", "/Public/.hidden", "/Public", ""] { rmdir(base + dir) }
    }

    static func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    func get(_ target: String, method: String = "GET", headers: Headers = Headers()) -> Response {
        router.respond(to: Request(method: method, target: target, headers: headers), logger: .discard)
    }

    @Test(arguments: [
        ("/static/css/site.css", "text/css; charset=utf-8", "body{color:red}"),
        ("/static/app.js", "text/javascript; charset=utf-8", "let a=1"),
        ("/static/logo.svg", "image/svg+xml", "<svg/>"),
        ("/static/font.woff2", "font/woff2", "w"),
        ("/static/data.bin", "application/octet-stream", "?"),
        ("/static/inside.css", "text/css; charset=utf-8", "body{color:red}"),
    ])
    func servesFilesWithTheirContentType(target: String, type: String, body: String) {
        let response = get(target)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == type)
        #expect(String(decoding: response.body, as: UTF8.self) == body)
        #expect(response.headers["Cache-Control"] == "public, max-age=600")
        #expect(response.headers["Last-Modified"]?.hasSuffix(" GMT") == true)
    }

    @Test func etagAndLastModifiedGive304() throws {
        let first = get("/static/css/site.css")
        let etag = try #require(first.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        #expect(get("/static/css/site.css", headers: ["If-None-Match": etag]).status == 304)
        #expect(get("/static/css/site.css", headers: ["If-None-Match": "\"other\", W/\(etag)"]).status == 304)
        #expect(get("/static/css/site.css", headers: ["If-None-Match": "\"other\""]).status == 200)
        let modified = try #require(first.headers["Last-Modified"])
        #expect(get("/static/css/site.css", headers: ["If-Modified-Since": modified]).status == 304)
        #expect(get("/static/css/site.css", headers: ["If-Modified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"]).status == 200)
        // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
        #expect(get("/static/css/site.css", headers: ["If-None-Match": "\"other\"", "If-Modified-Since": modified]).status == 200)
        let notModified = get("/static/css/site.css", headers: ["If-None-Match": etag])
        #expect(notModified.body.isEmpty && notModified.headers["ETag"] == etag)
    }

    @Test func headSendsLengthWithoutReading() {
        let response = get("/static/app.js", method: "HEAD")
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["Content-Length"] == "7")
    }

    @Test(arguments: [
        "/static/../outside.txt", "/static/css/../../outside.txt", "/static/%2e%2e/outside.txt",
        "/static/%2E%2E%2Foutside.txt", "/static/css/%2e%2e/site.css", "/static/escape.txt", "/static/.hidden/secret",
        "/static/css//site.css", "/static/css%00/site.css", "/static/css%5Csite.css", "/static/css", "/static/missing",
        "/static/./app.js",
    ])
    func refusesTraversalAndOddPaths(target: String) {
        let response = get(target)
        #expect(response.status == 404 || response.status == 400)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("secret"))
    }

    @Test func missingRootServesNothing() {
        var router = Router()
        router.get("/static/{path...}", StaticFiles(root: base + "/does-not-exist").handler)
        #expect(router.respond(to: Request(method: "GET", target: "/static/app.js"), logger: .discard).status == 404)
    }

    @Test func traversalOverTheSocketIsRefused() throws {
        let server = try startServer(responder: router.responder(logger: .discard))
        defer { server.stop() }
        let client = try TestClient(port: server.boundPort)
        for target in ["/static/../Package.swift", "/static/%2e%2e/outside.txt", "/static/escape.txt"] {
            try client.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = try client.readResponse()
            #expect(reply.status == 404, "\(target)")
        }
        try client.send("GET /static/css/site.css HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().text == "body{color:red}")
    }
}
