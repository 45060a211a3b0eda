import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import Testing

/// The environment pages of the dashboard (overview, apps, Play Integrity credentials, keys), driven in-process
/// as a browser would: cookie, CSRF token, urlencoded and multipart forms.
@Suite("Dashboard: environment pages")
struct DashboardEnvironmentTests {
    /// A fresh app, an owner's browser session and an environment to work on.
    static func fixture(kind: EnvironmentKind = .production) throws -> (app: TestApp, owner: TestApp.BrowserSession, id: String) {
        let app = try TestApp()
        let owner = try app.signIn(role: .owner)
        let (environment, _) = try app.application.domain.environments.create(name: "Production", kind: kind, actor: .system)
        return (app, owner, environment.id)
    }

    static func get(_ app: TestApp, _ path: String, _ session: TestApp.BrowserSession) -> TestResponse {
        app.send("GET", path, headers: session.headers)
    }

    /// A page's text with long digests joined again (they are shown in two halves that wrap between them).
    static func joined(_ response: TestResponse) -> String {
        response.text.replacingOccurrences(of: "</span><span>", with: "")
    }

    /// A multipart/form-data body (RFC 7578) with text fields and one file.
    static func multipart(fields: [String: String], file: (name: String, filename: String, bytes: [UInt8])) -> (contentType: String, body: [UInt8]) {
        let boundary = "----gatehouse-test-\(UUID().uuidString)"
        var body: [UInt8] = []
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\nContent-Type: application/json\r\n\r\n".utf8)
        body += file.bytes
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return ("multipart/form-data; boundary=\(boundary)", body)
    }

    @Test func androidAppDigestTypedInBase64IsShownAsColonHex() throws {
        let (app, owner, id) = try Self.fixture()
        let bytes = (0..<32).map { UInt8($0 * 7 % 256) }
        let base64 = Data(bytes).base64EncodedString()
        let posted = app.postForm("/environments/\(id)/apps/android", [
            "packageName": "com.example.app", "certificateDigests": "\(base64)\r\n", "outsidePlay": "on",
        ], session: owner)
        #expect(posted.status == 303, "\(posted.text)")
        let stored = try app.application.domain.environments.get(id).androidApps
        #expect(stored == [AndroidApp(packageName: "com.example.app", certificateDigests: [bytes], outsidePlay: true)])

        let page = Self.get(app, "/environments/\(id)/apps", owner)
        let colonHex = bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(Self.joined(page).contains("<code class=\"digest\"><span>\(colonHex)</span></code>"))
        #expect(page.text.contains("also outside Play"))
        #expect(page.text.contains("Registered com.example.app with 1 certificate digest."))

        // The edit page shows the same digest, one per line, and saving it unchanged keeps it.
        let edit = Self.get(app, "/environments/\(id)/apps/android/com.example.app", owner)
        #expect(edit.status == 200)
        #expect(edit.text.contains(">\(colonHex)</textarea>"))
        let saved = app.postForm("/environments/\(id)/apps/android/com.example.app", [
            "packageName": "com.example.app", "certificateDigests": colonHex,
        ], session: owner)
        #expect(saved.status == 303)
        #expect(try app.application.domain.environments.get(id).androidApps.first?.outsidePlay == false)
    }

    @Test func invalidPackageNameIsRejectedBesideTheFieldWithTheInputKept() throws {
        let (app, owner, id) = try Self.fixture()
        let digest = String(repeating: "ab", count: 32)
        let posted = app.postForm("/environments/\(id)/apps/android", [
            "packageName": "1nvalid", "certificateDigests": digest,
        ], session: owner)
        #expect(posted.status == 422)
        #expect(posted.text.contains("id=\"packageName-error\">Package name must be an Android application id"))
        #expect(posted.text.contains("value=\"1nvalid\""))
        #expect(posted.text.contains("aria-invalid=\"true\""))
        #expect(posted.text.contains(">\(digest)</textarea>"))
        #expect(try app.application.domain.environments.get(id).androidApps.isEmpty)
    }

    @Test(arguments: [
        ("AB:CD\n" + String(repeating: "00", count: 32), 1),
        (String(repeating: "00", count: 32) + "\nnot-a-digest", 2),
        (String(repeating: "00", count: 32) + "\n\n  \n" + String(repeating: "0", count: 63), 4),
    ])
    func badDigestIsNamedByItsLine(text: String, line: Int) throws {
        let (app, owner, id) = try Self.fixture()
        let posted = app.postForm("/environments/\(id)/apps/android", ["packageName": "com.example.app", "certificateDigests": text], session: owner)
        #expect(posted.status == 422)
        #expect(posted.text.contains("<p class=\"error\">Line \(line): must be a SHA-256 certificate digest"))
        #expect(try app.application.domain.environments.get(id).androidApps.isEmpty)
    }

    @Test func duplicatePackageIsRejected() throws {
        let (app, owner, id) = try Self.fixture()
        let first = app.postForm("/environments/\(id)/apps/android", ["packageName": "com.example.app", "certificateDigests": ""], session: owner)
        #expect(first.status == 303)
        let again = app.postForm("/environments/\(id)/apps/android", ["packageName": "com.example.app", "certificateDigests": ""], session: owner)
        #expect(again.status == 422)
        #expect(again.text.contains("Package name is already registered in this environment"))
        #expect(try app.application.domain.environments.get(id).androidApps.count == 1)
    }

    @Test func appleAppIDShowsItsRPIDHash() throws {
        let (app, owner, id) = try Self.fixture()
        let posted = app.postForm("/environments/\(id)/apps/apple", ["appId": "ABCDE12345.com.example.app"], session: owner)
        #expect(posted.status == 303)
        let page = Self.get(app, "/environments/\(id)/apps", owner)
        // SHA-256 of the UTF-8 bytes of "ABCDE12345.com.example.app" (sha256sum).
        #expect(Self.joined(page).contains("<span>78fac4e89cefcde20ecc77ec10d0db108e4ec3348b0c8cbafdf92cb4583f9882</span>"))
        #expect(page.text.contains("<code>ABCDE12345</code>"))

        let duplicate = app.postForm("/environments/\(id)/apps/apple", ["appId": "ABCDE12345.com.example.app"], session: owner)
        #expect(duplicate.status == 422)
        #expect(duplicate.text.contains("id=\"appId-error\">App id is already registered"))
        let invalid = app.postForm("/environments/\(id)/apps/apple", ["appId": "abc.com.example"], session: owner)
        #expect(invalid.status == 422)
        #expect(invalid.text.contains("App id must be TEAMID.bundleId"))
        #expect(invalid.text.contains("value=\"abc.com.example\""))
        #expect(try app.application.domain.environments.get(id).appleAppIDs == ["ABCDE12345.com.example.app"])

        let confirm = Self.get(app, "/environments/\(id)/apps/apple/ABCDE12345.com.example.app/remove", owner)
        #expect(confirm.status == 200)
        let removed = app.postForm("/environments/\(id)/apps/apple/ABCDE12345.com.example.app/remove", [:], session: owner)
        #expect(removed.status == 303)
        #expect(try app.application.domain.environments.get(id).appleAppIDs.isEmpty)
    }

    @Test func serviceAccountUploadIsSetAndItsKeyNeverShown() throws {
        let (app, owner, id) = try Self.fixture()
        let pem = try TestKeys.rsaPrivateKeyPEM()
        let json = TestKeys.serviceAccountJSON(privateKeyPEM: pem)
        let (contentType, body) = Self.multipart(fields: ["csrf": owner.csrf, "serviceAccountJSON": ""],
                                                 file: ("serviceAccountFile", "key.json", Array(json.utf8)))
        let posted = app.send("POST", "/environments/\(id)/play-integrity/service-account",
                              headers: ["Cookie": owner.cookie, "Content-Type": contentType], body: body)
        #expect(posted.status == 303, "\(posted.text)")
        #expect(try app.application.domain.environments.get(id).playIntegrity.serviceAccountSet)

        let apps = Self.get(app, "/environments/\(id)/apps", owner)
        #expect(apps.text.contains("Service account set (client e-mail integrity@demo-project.iam.gserviceaccount.com)."))
        #expect(apps.text.contains("<span class=\"badge ok\">set</span>"))
        #expect(apps.text.contains("<code>integrity@demo-project.iam.gserviceaccount.com</code>"))

        // No line of the private key on any page.
        let keyLines = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        #expect(keyLines.count > 3)
        for path in ["", "/apps", "/keys", "/play-integrity/service-account/remove"] {
            let page = Self.get(app, "/environments/\(id)\(path)", owner)
            #expect(page.status == 200)
            for line in keyLines { #expect(!page.text.contains(line), "private key shown on \(path)") }
        }

        // Malformed JSON pasted: the error names the byte, and the paste is not sent back.
        let pasted = "{\"type\": \"service_account\", \"private_key\": \"\(keyLines[1])\" oops"
        let bad = app.postForm("/environments/\(id)/play-integrity/service-account", ["serviceAccountJSON": pasted], session: owner)
        #expect(bad.status == 422)
        #expect(bad.text.range(of: #"This is not JSON: [^<]* at byte \d+"#, options: .regularExpression) != nil)
        #expect(bad.text.contains("(not shown again)"))
        #expect(!bad.text.contains(keyLines[1]))
        #expect(bad.text.contains("name=\"serviceAccountJSON\" rows=\"3\" autocomplete=\"off\" spellcheck=\"false\" placeholder=\"{ &quot;type&quot;: &quot;service_account&quot;, … }\" aria-invalid=\"true\" aria-describedby=\"serviceAccount-error\"></textarea>"))
        #expect(try app.application.domain.environments.get(id).playIntegrity.serviceAccountEmail == "integrity@demo-project.iam.gserviceaccount.com")

        // Removal goes through its confirmation page.
        let removed = app.postForm("/environments/\(id)/play-integrity/service-account/remove", [:], session: owner)
        #expect(removed.status == 303)
        #expect(try !app.application.domain.environments.get(id).playIntegrity.serviceAccountSet)
    }

    @Test func localKeysAreSetAndTheDecryptionKeyIsNeverEchoed() throws {
        let (app, owner, id) = try Self.fixture()
        let decryption = TestKeys.aesKeyBase64()
        let bad = app.postForm("/environments/\(id)/play-integrity/local", ["decryptionKey": decryption, "verificationKey": "bm90IGEga2V5"], session: owner)
        #expect(bad.status == 422)
        #expect(bad.text.contains("id=\"verificationKey-error\">Verification key must be the base64 verification key"))
        #expect(bad.text.contains("value=\"bm90IGEga2V5\""))
        #expect(!bad.text.contains(decryption))
        let good = app.postForm("/environments/\(id)/play-integrity/local", ["decryptionKey": decryption, "verificationKey": try TestKeys.ecPublicKeyBase64()], session: owner)
        #expect(good.status == 303)
        let status = try app.application.domain.environments.get(id).playIntegrity
        #expect(status.localSet)
        let page = Self.get(app, "/environments/\(id)/apps", owner)
        #expect(page.text.contains(try #require(status.localVerificationKeySHA256)))
        #expect(!page.text.contains(decryption))
    }

    @Test func secretKeyIsShownOnceRolledAndRevoked() throws {
        let (app, owner, id) = try Self.fixture()
        let created = app.postForm("/environments/\(id)/keys", ["type": "secret", "name": "Checkout"], session: owner)
        #expect(created.status == 200)
        #expect(created.headers["Cache-Control"] == "no-store")
        let secret = try #require(Self.secret(in: created.text))
        #expect(secret.hasPrefix("sk_live_"))
        let keysPage = Self.get(app, "/environments/\(id)/keys", owner)
        #expect(!keysPage.text.contains(secret))
        #expect(keysPage.text.contains("Checkout"))

        let key = try #require(try app.application.domain.keys.list(environmentID: id).first { $0.name == "Checkout" })
        let rolled = app.postForm("/environments/\(id)/keys/\(key.id)/roll", ["graceHours": "24"], session: owner)
        #expect(rolled.status == 200)
        #expect(rolled.headers["Cache-Control"] == "no-store")
        let newSecret = try #require(Self.secret(in: rolled.text))
        #expect(newSecret != secret && newSecret.hasPrefix("sk_live_"))
        #expect(try app.application.domain.keys.authenticateSecret(secret).id == key.id)

        let afterRoll = Self.get(app, "/environments/\(id)/keys", owner)
        #expect(afterRoll.text.contains("<span class=\"badge warn\">expiring</span>"))
        #expect(!afterRoll.text.contains(newSecret))

        let badRoll = app.postForm("/environments/\(id)/keys/\(key.id)/roll", ["graceHours": "500"], session: owner)
        #expect(badRoll.status == 422)

        let confirm = Self.get(app, "/environments/\(id)/keys/\(key.id)/revoke", owner)
        #expect(confirm.status == 200)
        #expect(confirm.text.contains("action=\"/environments/\(id)/keys/\(key.id)/revoke\""))
        let revoked = app.postForm("/environments/\(id)/keys/\(key.id)/revoke", [:], session: owner)
        #expect(revoked.status == 303)
        #expect(try app.application.domain.keys.list(environmentID: id).first { $0.id == key.id }?.revokedAt != nil)
        #expect(Self.get(app, "/environments/\(id)/keys", owner).text.contains("<span class=\"badge fail\">revoked</span>"))
        #expect { try app.application.domain.keys.authenticateSecret(secret) } throws: { if case DomainError.unauthenticated = $0 { true } else { false } }
    }

    @Test func publicKeyRedirectsWithAFlash() throws {
        let (app, owner, id) = try Self.fixture(kind: .development)
        let created = app.postForm("/environments/\(id)/keys", ["type": "public", "name": "iOS app"], session: owner)
        #expect(created.status == 303)
        let page = Self.get(app, "/environments/\(id)/keys", owner)
        let key = try #require(try app.application.domain.keys.list(environmentID: id).first { $0.name == "iOS app" })
        let value = try #require(key.publicValue)
        #expect(value.hasPrefix("pk_test_"))
        #expect(page.text.contains("Created public key iOS app: \(value)."))
        let empty = app.postForm("/environments/\(id)/keys", ["type": "public", "name": " "], session: owner)
        #expect(empty.status == 422)
        #expect(empty.text.contains("id=\"key-name-error\">Name must not be empty"))
    }

    @Test func overviewRenamesAndSwitchesAttackMode() throws {
        let (app, owner, id) = try Self.fixture()
        let bad = app.postForm("/environments/\(id)", ["name": "  ", "kind": "development"], session: owner)
        #expect(bad.status == 422)
        #expect(bad.text.contains("id=\"name-error\">Name must not be empty"))
        #expect(bad.text.contains("<option value=\"development\" selected>"))
        let renamed = app.postForm("/environments/\(id)", ["name": "Staging", "kind": "development"], session: owner)
        #expect(renamed.status == 303)
        let on = app.postForm("/environments/\(id)", ["attackMode": "on"], session: owner)
        #expect(on.status == 303)
        let environment = try app.application.domain.environments.get(id)
        #expect(environment.name == "Staging" && environment.kind == .development && environment.attackMode)
        let page = Self.get(app, "/environments/\(id)", owner)
        #expect(page.text.contains("Attack mode is on"))
        #expect(page.text.contains("Turn attack mode off"))
    }

    @Test func deletionNeedsTheTypedName() throws {
        let (app, owner, id) = try Self.fixture()
        let confirm = Self.get(app, "/environments/\(id)/delete", owner)
        #expect(confirm.status == 200)
        #expect(confirm.text.contains("name=\"confirmName\""))
        let wrong = app.postForm("/environments/\(id)/delete", ["confirmName": "production"], session: owner)
        #expect(wrong.status == 422)
        #expect(wrong.text.contains("id=\"confirmName-error\""))
        #expect(wrong.text.contains("value=\"production\""))
        #expect((try? app.application.domain.environments.get(id)) != nil)
        let right = app.postForm("/environments/\(id)/delete", ["confirmName": "Production"], session: owner)
        #expect(right.status == 303)
        #expect(right.headers["Location"] == "/environments")
        #expect { try app.application.domain.environments.get(id) } throws: { if case DomainError.notFound = $0 { true } else { false } }
    }

    @Test func viewersSeeNoFormsAndTheirPostsAreRefused() throws {
        let (app, owner, id) = try Self.fixture()
        #expect(app.postForm("/environments/\(id)/apps/android", ["packageName": "com.example.app", "certificateDigests": ""], session: owner).status == 303)
        let viewer = try app.signIn(role: .viewer)
        for path in ["", "/apps", "/keys", "/apps/android/com.example.app"] {
            let page = Self.get(app, "/environments/\(id)\(path)", viewer)
            #expect(page.status == 200, "\(path)")
            let forms = page.text.components(separatedBy: "<form method=\"post\"").dropFirst()
            #expect(forms.count == 1 && forms.allSatisfy { $0.hasPrefix(" action=\"/logout\"") }, "forms on \(path)")
        }
        #expect(Self.get(app, "/environments/\(id)/delete", viewer).status == 403)
        let before = try app.application.domain.environments.get(id)
        let forged = [
            app.postForm("/environments/\(id)", ["attackMode": "on"], session: viewer),
            app.postForm("/environments/\(id)/apps/apple", ["appId": "ABCDE12345.com.example.app"], session: viewer),
            app.postForm("/environments/\(id)/apps/android/com.example.app/remove", [:], session: viewer),
            app.postForm("/environments/\(id)/delete", ["confirmName": "Production"], session: viewer),
        ]
        #expect(forged.allSatisfy { $0.status == 403 })
        #expect(try app.application.domain.environments.get(id) == before)
        let keys = try app.application.domain.keys.list(environmentID: id)
        #expect(app.postForm("/environments/\(id)/keys", ["type": "secret", "name": "x"], session: viewer).status == 403)
        #expect(try app.application.domain.keys.list(environmentID: id) == keys)
    }

    @Test func postsWithoutTheCSRFTokenAreRefused() throws {
        let (app, owner, id) = try Self.fixture()
        let before = try app.application.domain.environments.get(id)
        let keys = try app.application.domain.keys.list(environmentID: id)
        let attempts = [
            app.postForm("/environments/\(id)", ["attackMode": "on"], session: owner, csrf: false),
            app.postForm("/environments/\(id)/apps/apple", ["appId": "ABCDE12345.com.example.app"], session: owner, csrf: false),
            app.postForm("/environments/\(id)/delete", ["confirmName": "Production"], session: owner, csrf: false),
            app.postForm("/environments/\(id)/keys", ["type": "secret", "name": "x", "csrf": "forged"], session: owner),
            app.postForm("/environments/\(id)/keys/\(keys[0].id)/revoke", [:], session: owner, csrf: false),
        ]
        #expect(attempts.map(\.status) == [403, 403, 403, 403, 403])
        #expect(try app.application.domain.environments.get(id) == before)
        #expect(try app.application.domain.keys.list(environmentID: id) == keys)
    }

    /// The secret on a shown-once page.
    static func secret(in html: String) -> String? {
        guard let range = html.range(of: "id=\"secret-value\" aria-labelledby=\"secret-label\">") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "<" })
    }
}

/// The environments list's checklist badges follow every change they depend on, although they are served from memory.
@Suite("Dashboard: environments list badges")
struct EnvironmentsListBadgeTests {
    static func badge(_ app: TestApp, _ owner: TestApp.BrowserSession) -> String {
        let page = app.send("GET", "/environments", headers: owner.headers).text
        guard let start = page.range(of: "/traffic\">")?.upperBound, let end = page[start...].range(of: "</a>")?.lowerBound else { return "" }
        return String(page[start..<end])
    }

    @Test func badgesFollowTheSetupTheKeysAndTheClock() throws {
        let (app, owner, id) = try DashboardEnvironmentTests.fixture()
        let services = app.application.domain
        // New: no apps, no app ids, no Play Integrity credentials.
        let fresh = Self.badge(app, owner)
        #expect(fresh.contains("to check") || fresh.contains("to fix"), "\(fresh)")
        #expect(Self.badge(app, owner) == fresh)  // served again from the cache, the same

        // Registering an Android app changes the environment's revision: one item fewer fails.
        var patch = EnvironmentPatch()
        patch.androidApps = .set([AndroidApp(packageName: "com.example.app", certificateDigests: [Array(repeating: 7, count: 32)], outsidePlay: false)])
        _ = try services.environments.patch(id, with: patch, actor: .system)
        let registered = Self.badge(app, owner)
        #expect(registered != fresh, "\(registered)")

        // Revoking the only secret key adds keys.noSecretKey.
        let secret = try #require(try services.keys.list(environmentID: id).first { $0.type == .secret })
        try services.keys.revoke(environmentID: id, keyID: secret.id, actor: .system)
        let revoked = Self.badge(app, owner)
        #expect(revoked != registered, "\(revoked)")

        // A new secret key clears it; rolled with an hour's grace and its successor revoked, the old key keeps it
        // clear until it expires.
        let issued = try services.keys.create(environmentID: id, type: .secret, name: "Short", actor: .system)
        #expect(Self.badge(app, owner) == registered)
        let successor = try services.keys.roll(environmentID: id, keyID: issued.key.id, graceHours: 1, actor: .system)
        try services.keys.revoke(environmentID: id, keyID: successor.key.id, actor: .system)
        #expect(Self.badge(app, owner) == registered)
        app.clock.advance(by: 3601)
        #expect(Self.badge(app, owner) == revoked)
    }
}
