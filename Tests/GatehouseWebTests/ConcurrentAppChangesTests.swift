import Foundation
import Gatehouse
import GatehouseTesting
import JSON
import Simulator
import Synchronization
import Testing

/// Many admins and a script changing the apps of one environment at the same moment, over a real socket: every
/// change that was answered as done must be there at the end (no lost update).
@Suite("Concurrent app changes")
struct ConcurrentAppChangesTests {
    static let rounds = 6
    static let sessions = 3
    static let apiClients = 3

    static func digest(_ seed: Int) -> String {
        (0..<32).map { String(format: "%02X", ($0 * 31 + seed) % 256) }.joined(separator: ":")
    }

    static func formBody(_ fields: [String: String]) -> [UInt8] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        let pairs = fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\((value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value).replacingOccurrences(of: "%20", with: "+"))"
        }
        return Array(pairs.joined(separator: "&").utf8)
    }

    /// What the test expects at the end, and what went wrong on the way.
    final class Outcome: Sendable {
        let failures = Mutex<[String]>([])

        func fail(_ text: String) { failures.withLock { $0.append(text) } }
    }

    @Test func everyAcknowledgedChangeIsKept() throws {
        let app = try TestApp()
        let services = app.application.domain
        let (created, _) = try services.environments.create(name: "Production", kind: .production, actor: .system)
        let id = created.id
        // Apps that the run edits or removes, and app ids it removes.
        var initial = EnvironmentPatch()
        initial.androidApps = .set((0..<Self.rounds).flatMap { i in
            [AndroidApp(packageName: "com.example.edit\(i)", certificateDigests: [CertificateDigest.parse(Self.digest(i)) ?? []], outsidePlay: false),
             AndroidApp(packageName: "com.example.remove\(i)", certificateDigests: [], outsidePlay: false)]
        })
        initial.appleAppIDs = .set((0..<Self.rounds).map { "OLDTEAM00\($0).com.example.old\($0)" })
        _ = try services.environments.patch(id, with: initial, actor: .system)

        let browsers = try (0..<Self.sessions).map { _ in try app.signIn(role: .editor) }
        let token = try app.token(scope: .write)
        let served = try app.serve(workers: 16)
        defer { served.stop() }
        let client = PlainHTTP(loopbackPort: served.port)
        let outcome = Outcome()

        @Sendable func post(_ session: TestApp.BrowserSession, _ path: String, _ fields: [String: String]) {
            var fields = fields
            fields["csrf"] = session.csrf
            do {
                let response = try client.send("POST", path, headers: [("Cookie", session.cookie), ("Content-Type", "application/x-www-form-urlencoded")],
                                               body: Self.formBody(fields))
                if response.status != 303 { outcome.fail("POST \(path): \(response.status) \(response.text.prefix(300))") }
            } catch {
                outcome.fail("POST \(path): \(error)")
            }
        }

        /// The API's way: read, change the array, PATCH with If-Match, again on 412.
        @Sendable func apiAdd(_ packageName: String) {
            let auth = [("Authorization", "Bearer " + token)]
            for _ in 0..<500 {
                do {
                    let got = try client.send("GET", "/api/management/v1/environments/\(id)", headers: auth)
                    guard let etag = got.header("ETag"), let apps = got.json?["androidApps"]?.array else {
                        return outcome.fail("GET for \(packageName): \(got.status)")
                    }
                    let added = JSON.object([.init("packageName", .string(packageName)), .init("certificateDigests", .array([])), .init("outsidePlay", .bool(true))])
                    let body = JSON.object([.init("androidApps", .array(apps + [added]))]).serialized()
                    let patched = try client.send("PATCH", "/api/management/v1/environments/\(id)",
                                                  headers: auth + [("Content-Type", "application/merge-patch+json"), ("If-Match", etag)], body: body)
                    if patched.status == 412 { continue }
                    if patched.status != 200 { outcome.fail("PATCH \(packageName): \(patched.status) \(patched.text.prefix(300))") }
                    return
                } catch {
                    return outcome.fail("API \(packageName): \(error)")
                }
            }
            outcome.fail("PATCH \(packageName): still 412 after 500 attempts")
        }

        let base = "/environments/\(id)/apps"
        var work: [@Sendable () -> Void] = []
        for i in 0..<Self.rounds {
            for (s, session) in browsers.enumerated() {
                work.append { post(session, "\(base)/android", ["packageName": "com.example.s\(s).a\(i)", "certificateDigests": Self.digest(100 + i)]) }
            }
            let session = browsers[i % browsers.count]
            work.append { post(session, "\(base)/android/com.example.edit\(i)",
                               ["packageName": "com.example.edit\(i)", "certificateDigests": Self.digest(i) + "\n" + Self.digest(50 + i)]) }
            work.append { post(session, "\(base)/android/com.example.remove\(i)/remove", [:]) }
            work.append { post(session, "\(base)/apple", ["appId": "NEWTEAM00\(i).com.example.new\(i)"]) }
            work.append { post(session, "\(base)/apple/OLDTEAM00\(i).com.example.old\(i)/remove", [:]) }
        }
        for c in 0..<Self.apiClients { work.append { apiAdd("com.example.api\(c)") } }

        // One thread per change, all released at once, so the requests overlap as much as the server allows.
        let gate = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for job in work {
            group.enter()
            Thread {
                gate.wait()
                job()
                group.leave()
            }.start()
        }
        for _ in work { gate.signal() }
        #expect(group.wait(timeout: .now() + 120) == .success)
        let failures = outcome.failures.withLock { $0 }
        #expect(failures.isEmpty, "\(failures)")

        let environment = try services.environments.get(id)
        let apps = Dictionary(environment.androidApps.map { ($0.packageName, $0) }, uniquingKeysWith: { first, _ in first })
        for i in 0..<Self.rounds {
            for s in 0..<Self.sessions {
                #expect(apps["com.example.s\(s).a\(i)"]?.certificateDigests.map(CertificateDigest.format) == [Self.digest(100 + i)], "add s\(s).a\(i) lost")
            }
            #expect(apps["com.example.edit\(i)"]?.certificateDigests.map(CertificateDigest.format) == [Self.digest(i), Self.digest(50 + i)], "edit \(i) lost")
            #expect(apps["com.example.remove\(i)"] == nil, "removal \(i) lost")
            #expect(environment.appleAppIDs.contains("NEWTEAM00\(i).com.example.new\(i)"), "app id \(i) lost")
            #expect(!environment.appleAppIDs.contains("OLDTEAM00\(i).com.example.old\(i)"), "app id removal \(i) lost")
        }
        for c in 0..<Self.apiClients { #expect(apps["com.example.api\(c)"]?.outsidePlay == true, "API add \(c) lost") }
        #expect(environment.androidApps.count == Self.rounds * (Self.sessions + 1) + Self.apiClients)
        #expect(environment.appleAppIDs.count == Self.rounds)
    }
}
