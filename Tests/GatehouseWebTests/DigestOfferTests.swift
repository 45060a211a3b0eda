import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import JSON
import Testing

/// The Traffic tab's one-click "add digest" against a repackaged app: a copy re-signed by someone else gets a genuine
/// verdict with `certificateMismatch` and `UNRECOGNIZED_VERSION`, carrying the attacker's digest. Only digests seen in
/// binaries Google recognized (`PLAY_RECOGNIZED`) are offered, however many copies run.
@Suite("Traffic: the digest offer and re-signed copies")
struct DigestOfferTests {
    let app: TestApp
    let environmentID: String
    let ingestAuth: Headers
    static let registered = String(repeating: "11:", count: 31) + "11"
    static let attacker = String(repeating: "AA:", count: 31) + "AA"
    static let appSigning = String(repeating: "5C:", count: 31) + "5C"

    init() throws {
        app = try TestApp()
        let auth: Headers = ["Authorization": "Bearer " + (try app.token())]
        let created = app.send("POST", "/api/management/v1/environments", json: ["name": "P", "kind": "production"], headers: auth).json
        environmentID = try #require(created?["id"]?.string)
        let secret = try #require(created?["keys"]?.array?.compactMap { $0["secret"]?.string }.first)
        ingestAuth = ["Authorization": "Bearer " + secret]
        let patched = app.send("PATCH", "/api/management/v1/environments/\(environmentID)",
                               json: ["androidApps": [["packageName": "com.example.app", "certificateDigests": [.string(Self.registered)]]]], headers: auth)
        #expect(patched.status == 200, "\(patched.text)")
    }

    /// `count` rejected Play Integrity verdicts of the last day reporting `digest` with the recognition `verdict`.
    func ingest(_ count: Int, digest: String, recognition: String) throws {
        let reasons: [JSON] = recognition == "PLAY_RECOGNIZED" ? ["certificateMismatch"] : ["certificateMismatch", .string("appVerdict:" + recognition)]
        let verdicts = (0..<count).map { i -> JSON in
            .object([
                .init("at", .string(Timestamp.format(app.clock.now - 3600 - Int64(i)))), .init("platform", "android"),
                .init("provider", "play-integrity"), .init("status", "rejected"), .init("reasons", .array(reasons)),
                .init("observed", ["packageName": "com.example.app", "certificateDigest": .string(digest), "appRecognitionVerdict": .string(recognition)]),
            ])
        }
        let response = app.send("POST", "/api/ingest/v1/verdicts", json: ["verdicts": .array(verdicts)], headers: ingestAuth)
        #expect(response.status == 202, "\(response.text)")
    }

    func trafficPage() throws -> String {
        let session = try app.signIn()
        let page = app.send("GET", "/environments/\(environmentID)/traffic", headers: session.headers)
        #expect(page.status == 200)
        return page.text
    }

    @Test func copiesReSignedBySomeoneElseAreNeverOffered() throws {
        try ingest(60, digest: Self.attacker, recognition: "UNRECOGNIZED_VERSION")
        let page = try trafficPage()
        #expect(page.contains("id=\"android.certificateNotRegistered\""))
        #expect(!page.contains("/traffic/add-digest"), "the attacker's digest was offered for registration")
        #expect(page.contains("look like copies of your app re-signed by someone else"))
    }

    @Test func theRecognizedDigestIsOfferedEvenWhenCopiesOutnumberIt() throws {
        try ingest(60, digest: Self.attacker, recognition: "UNRECOGNIZED_VERSION")
        try ingest(30, digest: Self.appSigning, recognition: "PLAY_RECOGNIZED")
        let page = try trafficPage()
        #expect(page.contains("Add <code>\(Self.appSigning)</code> to com.example.app"), "the app-signing digest Play distributes is not offered")
        #expect(!page.contains("Add <code>\(Self.attacker)</code>"))
        #expect(!page.contains("look like copies of your app re-signed"))
    }
}
