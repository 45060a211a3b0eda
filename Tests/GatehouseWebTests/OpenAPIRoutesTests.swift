import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import HTTPServer
import JSON
import Testing

/// `Public/openapi.json` against the router: every API route is documented with its method, and every documented
/// operation is a route. The document is read the way a client reads it, from `GET /api/management/v1/openapi.json`.
///
/// Which routes must be documented: everything under `/api/`, plus `/healthz`, `/readyz` and `/metrics`. The
/// dashboard's HTML pages and `/static/{path...}` are for browsers and stay out of the document.
@Suite("OpenAPI document covers the routes")
struct OpenAPIRoutesTests {
    static let operationMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Whether a route belongs in the API description.
    static func isDocumented(_ pattern: String) -> Bool {
        pattern.hasPrefix("/api/") || ["/healthz", "/readyz", "/metrics"].contains(pattern)
    }

    /// `METHOD pattern` of every operation in a document's `paths`.
    static func operations(_ document: JSON) throws -> Set<String> {
        let paths = try #require(document["paths"]?.members)
        var found: Set<String> = []
        for path in paths {
            for member in path.value.members ?? [] where operationMethods.contains(member.key) {
                found.insert(member.key.uppercased() + " " + path.key)
            }
        }
        return found
    }

    /// `METHOD pattern` of every route the application registered that belongs in the document; a route of any
    /// method (`*`, the edge checks) is documented as GET and POST.
    static func routes(_ app: TestApp) -> Set<String> {
        Set(app.application.routes.filter { isDocumented($0.pattern) }.flatMap { route in
            route.method == "*" ? ["GET \(route.pattern)", "POST \(route.pattern)"] : ["\(route.method) \(route.pattern)"]
        })
    }

    static func document(_ app: TestApp) throws -> JSON {
        let response = app.send("GET", "/api/management/v1/openapi.json")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        return try JSONParser.parse(response.response.body)
    }

    @Test func everyRouteIsDocumentedAndEveryOperationIsARoute() throws {
        let app = try TestApp()
        let document = try Self.document(app)
        #expect(document["openapi"]?.string?.hasPrefix("3.1") == true)
        let routes = Self.routes(app)
        let operations = try Self.operations(document)
        #expect(routes.count >= 16)
        let undocumented = routes.subtracting(operations).sorted()
        let phantom = operations.subtracting(routes).sorted()
        #expect(undocumented.isEmpty, "routes missing from Public/openapi.json: \(undocumented)")
        #expect(phantom.isEmpty, "documented operations with no route: \(phantom)")
    }

    /// The comparison itself must catch a route added without documentation (and a stale operation).
    @Test func theComparisonCatchesADifference() throws {
        let app = try TestApp()
        let document = try Self.document(app)
        var routes = Self.routes(app)
        routes.insert("PUT /api/management/v1/environments/{environmentId}")
        let operations = try Self.operations(document)
        #expect(routes.subtracting(operations) == ["PUT /api/management/v1/environments/{environmentId}"])
        routes.remove("GET /api/management/v1/audit")
        #expect(operations.subtracting(routes) == ["GET /api/management/v1/audit"])
        #expect(!Self.isDocumented("/static/{path...}"))
        #expect(!Self.isDocumented("/environments/{environmentId}"))
        #expect(Self.isDocumented("/api/ingest/v1/verdicts"))
    }

    /// Every path parameter in a documented pattern is declared (path level or operation level), and each declared
    /// one appears in the pattern: `{name}` segments are the router's and OpenAPI's syntax alike.
    @Test func pathParametersMatchTheTemplates() throws {
        let app = try TestApp()
        let document = try Self.document(app)
        let components = document["components"]?["parameters"]
        for path in try #require(document["paths"]?.members) {
            let names = Set(path.key.split(separator: "/").filter { $0.hasPrefix("{") && $0.hasSuffix("}") }.map { String($0.dropFirst().dropLast()) })
            for member in path.value.members ?? [] where Self.operationMethods.contains(member.key) {
                var declared: Set<String> = []
                for parameter in (path.value["parameters"]?.array ?? []) + (member.value["parameters"]?.array ?? []) {
                    var resolved = parameter
                    if let reference = parameter["$ref"]?.string, let name = reference.split(separator: "/").last {
                        resolved = try #require(components?[String(name)], "unresolved \(reference)")
                    }
                    if resolved["in"]?.string == "path", let name = resolved["name"]?.string {
                        declared.insert(name)
                        #expect(resolved["required"]?.bool == true, "\(path.key): path parameter \(name) must be required")
                    }
                }
                #expect(declared == names, "\(member.key.uppercased()) \(path.key): declares \(declared.sorted()), template has \(names.sorted())")
            }
        }
    }

    /// Each management operation says which token scope it needs, and it is the scope the server enforces: a read
    /// token is refused (403) exactly where the document says `write`.
    @Test func documentedScopesAreTheEnforcedOnes() throws {
        let app = try TestApp()
        let document = try Self.document(app)
        let read: Headers = ["Authorization": "Bearer " + (try app.token(scope: .read))]
        let write: Headers = ["Authorization": "Bearer " + (try app.token(scope: .write))]
        let created = app.send("POST", "/api/management/v1/environments", json: ["name": "P", "kind": "production"], headers: write)
        let environmentID = try #require(created.json?["id"]?.string)
        let keyID = try #require(created.json?["keys"]?.array?.first?["id"]?.string)
        var checked = 0
        for path in try #require(document["paths"]?.members) where path.key.hasPrefix("/api/management/") {
            for member in path.value.members ?? [] where Self.operationMethods.contains(member.key) {
                let target = path.key.replacingOccurrences(of: "{environmentId}", with: environmentID).replacingOccurrences(of: "{keyId}", with: keyID)
                let method = member.key.uppercased()
                if member.value["security"]?.array?.isEmpty == true {
                    #expect(app.send(method, target).status != 401, "\(method) \(path.key) is documented as public")
                    continue
                }
                let scope = try #require(member.value["x-required-scope"]?.string, "\(method) \(path.key) has no x-required-scope")
                #expect(app.send(method, target).status == 401, "\(method) \(path.key) without a token")
                let status = app.send(method, target, headers: read, body: method == "GET" || method == "DELETE" ? [] : Array("{}".utf8)).status
                if scope == "write" {
                    #expect(status == 403, "\(method) \(path.key) with a read token")
                } else {
                    #expect(scope == "read")
                    #expect(status != 403 && status != 401, "\(method) \(path.key) with a read token")
                }
                checked += 1
            }
        }
        let managementRoutes = Self.routes(app).filter { $0.contains(" /api/management/") && !$0.hasSuffix("/openapi.json") }
        #expect(checked == managementRoutes.count && checked >= 15, "every management operation but the document itself was checked")
    }
}
