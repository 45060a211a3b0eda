import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import JSON
import Testing

/// The management API's environments, driven in-process through the whole router.
@Suite("Environments API")
struct EnvironmentAPITests {
    let app: TestApp
    let auth: Headers
    static let base = "/api/management/v1"

    init() throws {
        app = try TestApp()
        auth = ["Authorization": "Bearer " + (try app.token())]
    }

    func create(_ name: String = "Production", kind: String = "production") throws -> JSON {
        let r = app.send("POST", "\(Self.base)/environments", json: ["name": .string(name), "kind": .string(kind)], headers: auth)
        #expect(r.status == 201, "\(r.text)")
        return try #require(r.json)
    }

    @Test func createListGetDelete() throws {
        let r = app.send("POST", "\(Self.base)/environments", json: ["name": "Production", "kind": "production"], headers: auth)
        #expect(r.status == 201)
        let env = try #require(r.json)
        let id = try #require(env["id"]?.string)
        #expect(id.hasPrefix("env_"))
        #expect(r.headers["Location"] == "\(Self.base)/environments/\(id)")
        #expect(env["kind"]?.string == "production")
        #expect(env["androidApps"]?.array?.isEmpty == true)
        let keys = try #require(env["keys"]?.array)
        #expect(keys.count == 2)
        let publicKey = try #require(keys.first { $0["type"]?.string == "public" })
        #expect(publicKey["value"]?.string?.hasPrefix("pk_live_") == true)
        let secretKey = try #require(keys.first { $0["type"]?.string == "secret" })
        let secret = try #require(secretKey["secret"]?.string)
        #expect(secret.hasPrefix("sk_live_"))

        let list = app.send("GET", "\(Self.base)/environments", headers: auth)
        #expect(list.status == 200)
        #expect(list.json?["environments"]?.array?.count == 1)
        #expect(!list.text.contains(secret))

        let got = app.send("GET", "\(Self.base)/environments/\(id)", headers: auth)
        #expect(got.status == 200)
        #expect(got.json?["name"]?.string == "Production")
        #expect(got.json?["keys"] == nil)
        #expect(!got.text.contains(secret))

        #expect(app.send("DELETE", "\(Self.base)/environments/\(id)", headers: auth).status == 204)
        let gone = app.send("GET", "\(Self.base)/environments/\(id)", headers: auth)
        #expect(gone.status == 404)
        #expect(gone.headers["Content-Type"] == "application/problem+json")
        #expect(app.send("DELETE", "\(Self.base)/environments/\(id)", headers: auth).status == 404)
    }

    /// U+0000 cannot be stored by PostgreSQL (and libpq would cut a text there): refused by pointer on both engines,
    /// nothing created; a PATCH deep in the document is named as deep.
    @Test func aNULInAnyStringIsRefusedByPointer() throws {
        let refused = app.send("POST", "\(Self.base)/environments", json: ["name": "Prod\u{0}uction", "kind": "production"], headers: auth)
        #expect(refused.status == 400, "\(refused.text)")
        #expect(refused.json?["errors"]?.array?.first?["pointer"]?.string == "/name")
        #expect(app.send("GET", "\(Self.base)/environments", headers: auth).json?["environments"]?.array?.isEmpty == true)
        let id = try #require(try create()["id"]?.string)
        let patch = app.send("PATCH", "\(Self.base)/environments/\(id)", json: ["androidApps": [["packageName": "com.example\u{0}app"]]], headers: auth)
        #expect(patch.status == 400, "\(patch.text)")
        #expect(patch.json?["errors"]?.array?.first?["pointer"]?.string == "/androidApps/0/packageName")
    }

    @Test func developmentKeysAreTestKeys() throws {
        let env = try create("Dev", kind: "development")
        let keys = try #require(env["keys"]?.array)
        #expect(keys.contains { $0["value"]?.string?.hasPrefix("pk_test_") == true })
        #expect(keys.contains { $0["secret"]?.string?.hasPrefix("sk_test_") == true })
    }

    @Test("creation validates every field", arguments: [
        (#"{"name": "", "kind": "staging"}"#, ["/name", "/kind"]),
        (#"{}"#, ["/name", "/kind"]),
        (#"{"name": "x", "kind": "production", "androidApps": []}"#, ["/androidApps"]),
    ])
    func createValidation(body: String, pointers: [String]) throws {
        let r = app.send("POST", "\(Self.base)/environments", headers: auth, body: Array(body.utf8))
        #expect(r.status == 422)
        #expect(r.headers["Content-Type"] == "application/problem+json")
        let errors = try #require(r.json?["errors"]?.array)
        #expect(errors.compactMap { $0["pointer"]?.string }.sorted() == pointers.sorted())
        #expect(errors.allSatisfy { !($0["detail"]?.string ?? "").isEmpty })
    }

    @Test func seed003PatchAndMergeSemantics() throws {
        let id = try #require(try create()["id"]?.string)
        let digest = String(repeating: "ab", count: 32)
        let patch = app.send("PATCH", "\(Self.base)/environments/\(id)", json: [
            "androidApps": [["packageName": "com.example.app", "certificateDigests": .array([.string(digest)])]],
            "appleAppIds": ["ABCDE12345.com.example.yourapp"],
        ], headers: auth)
        #expect(patch.status == 200, "\(patch.text)")
        let apps = try #require(patch.json?["androidApps"]?.array)
        #expect(apps.count == 1)
        #expect(apps[0]["certificateDigests"]?.array?.first?.string == Array(repeating: "AB", count: 32).joined(separator: ":"))
        #expect(apps[0]["outsidePlay"]?.bool == false)

        // Absent leaves alone.
        let renamed = app.send("PATCH", "\(Self.base)/environments/\(id)", json: ["name": "Prod"], headers: auth)
        #expect(renamed.json?["name"]?.string == "Prod")
        #expect(renamed.json?["androidApps"]?.array?.count == 1)
        #expect(renamed.json?["appleAppIds"]?.array?.count == 1)

        // Arrays replace whole.
        let replaced = app.send("PATCH", "\(Self.base)/environments/\(id)", json: ["appleAppIds": ["ZZZZZ99999.com.other"]], headers: auth)
        #expect(replaced.json?["appleAppIds"] == ["ZZZZZ99999.com.other"])

        // null removes.
        let removed = app.send("PATCH", "\(Self.base)/environments/\(id)", json: ["androidApps": nil, "attackMode": true], headers: auth)
        #expect(removed.json?["androidApps"]?.array?.isEmpty == true)
        #expect(removed.json?["attackMode"]?.bool == true)
        #expect(removed.json?["appleAppIds"] == ["ZZZZZ99999.com.other"])

        // merge-patch+json is accepted too; other types are 415.
        var mergeHeaders = auth
        mergeHeaders.set("Content-Type", "application/merge-patch+json")
        #expect(app.send("PATCH", "\(Self.base)/environments/\(id)", headers: mergeHeaders, body: Array(#"{"kind":"development"}"#.utf8)).status == 200)
        var textHeaders = auth
        textHeaders.set("Content-Type", "text/plain")
        let unsupported = app.send("PATCH", "\(Self.base)/environments/\(id)", headers: textHeaders, body: Array("{}".utf8))
        #expect(unsupported.status == 415)
        #expect(unsupported.headers["Accept-Patch"]?.contains("application/merge-patch+json") == true)
    }

    @Test func threeDigestEncodingsNormalizeToOneValue() throws {
        let id = try #require(try create()["id"]?.string)
        let bytes: [UInt8] = (0..<32).map { UInt8(255 - $0 * 5) }
        let colonHex = bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
        let plainHex = colonHex.replacingOccurrences(of: ":", with: "").lowercased()
        let base64 = Data(bytes).base64EncodedString()
        let base64url = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        for (i, encoding) in [colonHex, plainHex, base64, base64url].enumerated() {
            let r = app.send("PATCH", "\(Self.base)/environments/\(id)", json: [
                "androidApps": [["packageName": .string("com.example.app\(i)"), "certificateDigests": .array([.string(encoding)])]],
            ], headers: auth)
            #expect(r.status == 200, "\(encoding): \(r.text)")
            #expect(r.json?["androidApps"]?.array?.first?["certificateDigests"] == .array([.string(colonHex)]))
        }
        // All four in one app collapse to one digest.
        let r = app.send("PATCH", "\(Self.base)/environments/\(id)", json: [
            "androidApps": [["packageName": "com.example.app", "certificateDigests": .array([colonHex, plainHex, base64, base64url].map { .string($0) })]],
        ], headers: auth)
        #expect(r.json?["androidApps"]?.array?.first?["certificateDigests"] == .array([.string(colonHex)]))
    }

    @Test func invalidPatchListsEveryFieldAndWritesNothing() throws {
        let id = try #require(try create()["id"]?.string)
        let r = app.send("PATCH", "\(Self.base)/environments/\(id)", json: [
            "name": "Renamed",
            "androidApps": [
                ["packageName": "com.example.app", "certificateDigests": ["AB:CD", .string(String(repeating: "0", count: 64))]],
                ["packageName": "nodots"],
                ["packageName": "com.example.app"],
            ],
            "appleAppIds": ["short.id"],
        ], headers: auth)
        #expect(r.status == 422)
        let pointers = try #require(r.json?["errors"]?.array).compactMap { $0["pointer"]?.string }
        #expect(pointers == ["/androidApps/0/certificateDigests/0", "/androidApps/1/packageName", "/androidApps/2/packageName", "/appleAppIds/0"])
        let digestDetail = try #require(r.json?["errors"]?.array?.first?["detail"]?.string)
        #expect(digestDetail.contains("32 bytes"))
        let after = app.send("GET", "\(Self.base)/environments/\(id)", headers: auth)
        #expect(after.json?["name"]?.string == "Production")
        #expect(after.json?["androidApps"]?.array?.isEmpty == true)
    }

    @Test func malformedJSONNamesTheOffset() throws {
        let id = try #require(try create()["id"]?.string)
        let r = app.send("PATCH", "\(Self.base)/environments/\(id)", headers: auth, body: Array(#"{"name": "x",}"#.utf8))
        #expect(r.status == 400)
        #expect(r.json?["offset"]?.integer == 13)
        #expect(r.json?["detail"]?.string?.contains("byte 13") == true)
    }

    @Test func unknownEnvironmentIs404() {
        #expect(app.send("GET", "\(Self.base)/environments/env_nope", headers: auth).status == 404)
        #expect(app.send("PATCH", "\(Self.base)/environments/env_nope", json: ["name": "x"], headers: auth).status == 404)
    }

    @Test func entityTags() throws {
        let id = try #require(try create()["id"]?.string)
        let first = app.send("GET", "\(Self.base)/environments/\(id)", headers: auth)
        let etag = try #require(first.headers["ETag"])
        var conditional = auth
        conditional.set("If-None-Match", etag)
        let notModified = app.send("GET", "\(Self.base)/environments/\(id)", headers: conditional)
        #expect(notModified.status == 304)
        #expect(notModified.response.body.isEmpty)

        var ifMatch = auth
        ifMatch.set("If-Match", etag)
        let updated = app.send("PATCH", "\(Self.base)/environments/\(id)", json: ["name": "A"], headers: ifMatch)
        #expect(updated.status == 200)
        let newTag = try #require(updated.headers["ETag"])
        #expect(newTag != etag)
        // The old tag is stale now: 412 and nothing written.
        let stale = app.send("PATCH", "\(Self.base)/environments/\(id)", json: ["name": "B"], headers: ifMatch)
        #expect(stale.status == 412)
        #expect(app.send("GET", "\(Self.base)/environments/\(id)", headers: auth).json?["name"]?.string == "A")
        #expect(app.send("DELETE", "\(Self.base)/environments/\(id)", headers: ifMatch).status == 412)
        // And the GET with the old tag is a full 200 again.
        #expect(app.send("GET", "\(Self.base)/environments/\(id)", headers: conditional).status == 200)
    }
}
