import Foundation
import Gatehouse
import GatehouseTesting
import HTTP
import Testing

/// The tokens, admins, account and audit pages, driven in-process like a browser.
@Suite("Dashboard admin pages")
struct DashboardAdminTests {
    static let password = "correct horse battery staple"

    static func first(_ pattern: String, in text: String) -> String? {
        text.range(of: pattern, options: .regularExpression).map { String(text[$0]) }
    }

    static func isSignedOut(_ response: TestResponse) -> Bool {
        response.status == 303 && response.headers["Location"] == "/login"
    }

    /// The flash message the next page shows.
    static func flash(_ app: TestApp, _ session: TestApp.BrowserSession, at path: String) -> String {
        let page = app.send("GET", path, headers: session.headers).text
        guard let start = page.range(of: "<div class=\"flash\" role=\"status\">"), let end = page[start.upperBound...].range(of: "</div>") else { return "" }
        return String(page[start.upperBound..<end.lowerBound])
    }

    // MARK: Tokens

    @Test func tokenIsShownOnceUsableThenRevoked() throws {
        let app = try TestApp()
        let editor = try app.signIn(role: .editor)
        let created = app.postForm("/tokens", ["name": "Deploy pipeline", "scope": "write"], session: editor)
        #expect(created.status == 200)
        #expect(created.headers["Cache-Control"] == "no-store")
        let secret = try #require(Self.first(#"gtm_[a-z0-9]{20,}"#, in: created.text))
        #expect(created.text.contains("curl -H &quot;Authorization: Bearer \(secret)&quot; http://gatehouse.test/api/management/v1/environments"))

        let list = app.send("GET", "/tokens", headers: editor.headers)
        #expect(list.text.contains("Deploy pipeline"))
        #expect(!list.text.contains(secret))
        #expect(list.text.contains("gtm_…" + secret.suffix(4)))
        #expect(list.text.contains("never"))

        let auth: Headers = ["Authorization": "Bearer " + secret]
        #expect(app.send("GET", "/api/management/v1/environments", headers: auth).status == 200)
        #expect(!app.send("GET", "/tokens", headers: editor.headers).text.contains(">never<"))

        let id = try #require(try app.application.domain.tokens.list().first?.id)
        let confirm = app.send("GET", "/tokens/\(id)/revoke", headers: editor.headers)
        #expect(confirm.status == 200)
        #expect(confirm.text.contains("action=\"/tokens/\(id)/revoke\""))
        #expect(try app.application.domain.tokens.list().first?.revokedAt == nil)
        let revoked = app.postForm("/tokens/\(id)/revoke", [:], session: editor)
        #expect(revoked.status == 303)
        #expect(Self.flash(app, editor, at: "/tokens").contains("revoked"))
        #expect(app.send("GET", "/api/management/v1/environments", headers: auth).status == 401)
        #expect(app.send("GET", "/tokens/\(id)/revoke", headers: editor.headers).status == 409)
    }

    @Test(arguments: [
        (["name": "", "scope": "read"], "name-error"),
        (["name": "Fine", "scope": "admin"], "scope-error"),
        (["name": String(repeating: "x", count: 300), "scope": "write"], "name-error"),
    ])
    func invalidTokenFormsKeepInput(fields: [String: String], marker: String) throws {
        let app = try TestApp()
        let editor = try app.signIn(role: .editor)
        let response = app.postForm("/tokens", fields, session: editor)
        #expect(response.status == 422)
        #expect(response.text.contains("aria-invalid=\"true\""))
        #expect(response.text.contains("class=\"error\" id=\"\(marker)\""))
        if let name = fields["name"], !name.isEmpty { #expect(response.text.contains("value=\"\(name)\"")) }
        #expect(try app.application.domain.tokens.list().isEmpty)
    }

    // MARK: Admins

    @Test func ownerAddsChangesAndDisablesAdmins() throws {
        let app = try TestApp()
        let owner = try app.signIn(role: .owner)
        let admins = app.application.domain.admins

        let bad = app.postForm("/admins", ["email": "new@example.com", "password": "short", "role": "editor"], session: owner)
        #expect(bad.status == 422)
        #expect(bad.text.contains("Password must be at least 12 characters"))
        #expect(bad.text.contains("value=\"new@example.com\""))
        #expect(try admins.list().count == 1)

        #expect(app.postForm("/admins", ["email": "new@example.com", "password": Self.password, "role": "editor"], session: owner).status == 303)
        let added = try #require(try admins.list().first { $0.email == "new@example.com" })
        #expect(added.role == .editor)
        let duplicate = app.postForm("/admins", ["email": "NEW@example.com", "password": Self.password, "role": "viewer"], session: owner)
        #expect(duplicate.status == 422)

        let newcomer = try app.signIn(role: .editor, email: "new@example.com", password: Self.password)
        #expect(app.send("GET", "/tokens", headers: newcomer.headers).text.contains("action=\"/tokens\""))
        #expect(app.postForm("/admins/\(added.id)/role", ["role": "viewer"], session: owner).status == 303)
        #expect(try admins.get(added.id).role == .viewer)
        // The change applies to the open session at once.
        #expect(!app.send("GET", "/tokens", headers: newcomer.headers).text.contains("action=\"/tokens\""))

        #expect(app.send("GET", "/admins/\(added.id)/disable", headers: owner.headers).status == 200)
        #expect(app.postForm("/admins/\(added.id)/disable", [:], session: owner).status == 303)
        #expect(try admins.get(added.id).disabled)
        #expect(Self.isSignedOut(app.send("GET", "/tokens", headers: newcomer.headers)))
        #expect(app.postForm("/login", ["email": "new@example.com", "password": Self.password]).status == 401)

        #expect(app.postForm("/admins/\(added.id)/enable", [:], session: owner).status == 303)
        #expect(app.postForm("/login", ["email": "new@example.com", "password": Self.password]).status == 303)
        let actions = try app.application.domain.audit.list(limit: 100).entries.map(\.action)
        for action in ["admin.create", "admin.role", "admin.disable", "admin.enable"] { #expect(actions.contains(action)) }
    }

    @Test func theLastActiveOwnerStays() throws {
        let app = try TestApp()
        let owner = try app.signIn(role: .owner, email: "only@example.com")
        let admins = app.application.domain.admins
        let me = try #require(try admins.list().first)
        let demote = app.postForm("/admins/\(me.id)/role", ["role": "editor"], session: owner)
        #expect(demote.status == 409)
        #expect(demote.text.contains("last active owner"))
        let disable = app.postForm("/admins/\(me.id)/disable", [:], session: owner)
        #expect(disable.status == 409)
        #expect(try admins.get(me.id).role == .owner)
        #expect(try !admins.get(me.id).disabled)

        // A disabled second owner does not count; an active one does.
        let other = try admins.create(email: "second@example.com", password: Self.password, role: .owner, actor: .system)
        try admins.setDisabled(id: other.id, disabled: true, actor: .system)
        #expect(app.postForm("/admins/\(me.id)/role", ["role": "viewer"], session: owner).status == 409)
        try admins.setDisabled(id: other.id, disabled: false, actor: .system)
        let ok = app.postForm("/admins/\(me.id)/role", ["role": "editor"], session: owner)
        #expect(ok.status == 303)
        #expect(ok.headers["Location"] == "/account")
        #expect(try admins.get(me.id).role == .editor)
        #expect(app.send("GET", "/admins", headers: owner.headers).status == 403)
        #expect { try admins.setDisabled(id: other.id, disabled: true, actor: .system) } throws: { if case DomainError.conflict = $0 { true } else { false } }
    }

    /// Sessions are answered from memory; a change to their admin made anywhere applies to the next page at once.
    @Test func adminChangesReachSessionsServedFromMemory() throws {
        let app = try TestApp()
        let admins = app.application.domain.admins
        let editor = try app.signIn(role: .editor, email: "ed@example.com", password: Self.password)
        let id = try #require(try admins.list().first { $0.email == "ed@example.com" }?.id)
        for _ in 0..<2 { #expect(app.send("GET", "/tokens", headers: editor.headers).text.contains("action=\"/tokens\"")) }
        try admins.setRole(id: id, role: .viewer, actor: .system)
        #expect(!app.send("GET", "/tokens", headers: editor.headers).text.contains("action=\"/tokens\""))
        try admins.setDisabled(id: id, disabled: true, actor: .system)
        #expect(Self.isSignedOut(app.send("GET", "/tokens", headers: editor.headers)))

        try admins.setDisabled(id: id, disabled: false, actor: .system)
        let here = try app.signIn(role: .viewer, email: "ed@example.com", password: Self.password)
        let elsewhere = try app.signIn(role: .viewer, email: "ed@example.com", password: Self.password)
        #expect(app.send("GET", "/account", headers: elsewhere.headers).status == 200)
        try admins.changePassword(id: id, current: Self.password, new: "a new long passphrase", keeping: nil)
        #expect(Self.isSignedOut(app.send("GET", "/account", headers: elsewhere.headers)))
        #expect(Self.isSignedOut(app.send("GET", "/account", headers: here.headers)))
    }

    // MARK: Account

    @Test func changingThePasswordEndsOtherSessions() throws {
        let app = try TestApp()
        let here = try app.signIn(role: .viewer, email: "vic@example.com", password: Self.password)
        let elsewhere = try app.signIn(role: .viewer, email: "vic@example.com", password: Self.password)
        let account = app.send("GET", "/account", headers: here.headers)
        #expect(account.text.contains("vic@example.com"))
        #expect(account.text.contains("action=\"/account/password\""))

        let wrong = app.postForm("/account/password", ["current": "not my password", "password": "a new long passphrase", "confirm": "a new long passphrase"], session: here)
        #expect(wrong.status == 422)
        #expect(wrong.text.contains("id=\"current-error\""))
        let mismatch = app.postForm("/account/password", ["current": Self.password, "password": "a new long passphrase", "confirm": "another one"], session: here)
        #expect(mismatch.status == 422)
        #expect(mismatch.text.contains("id=\"confirm-error\""))
        let short = app.postForm("/account/password", ["current": Self.password, "password": "short", "confirm": "short"], session: here)
        #expect(short.text.contains("id=\"password-error\""))
        #expect(app.postForm("/account/password", ["current": Self.password, "password": "a new long passphrase", "confirm": "a new long passphrase"],
                             session: here, csrf: false).status == 403)

        let changed = app.postForm("/account/password", ["current": Self.password, "password": "a new long passphrase", "confirm": "a new long passphrase"], session: here)
        #expect(changed.status == 303)
        #expect(app.send("GET", "/account", headers: here.headers).status == 200)
        #expect(Self.isSignedOut(app.send("GET", "/account", headers: elsewhere.headers)))
        #expect(app.postForm("/login", ["email": "vic@example.com", "password": Self.password]).status == 401)
        #expect(app.postForm("/login", ["email": "vic@example.com", "password": "a new long passphrase"]).status == 303)
        let entry = try #require(try app.application.domain.audit.list(limit: 20).entries.first { $0.action == "admin.password" })
        #expect(!entry.changes.text.contains("passphrase"))
    }

    // MARK: Audit

    @Test func auditFiltersAndPages() throws {
        let app = try TestApp()
        let viewer = try app.signIn(role: .viewer)
        let services = app.application.domain
        let alice = AuditActor(kind: .admin, id: "adm_alice", name: "alice@example.com")
        let robot = AuditActor(kind: .token, id: "tok_robot", name: "Robot")
        let (production, _) = try services.environments.create(name: "Production", kind: .production, actor: alice)
        let (staging, _) = try services.environments.create(name: "Staging", kind: .development, actor: robot)
        for i in 0..<60 {
            _ = try services.tokens.create(name: "token \(i)", scope: .read, actor: i.isMultiple(of: 2) ? alice : robot)
        }
        try services.environments.delete(staging.id, actor: alice)
        let total = try services.audit.list(limit: 1000).entries.count

        func rows(_ text: String) -> Int { text.components(separatedBy: "<tr class=\"entry\">").count - 1 }
        func link(_ label: String, in text: String) -> String? {
            guard let end = text.range(of: "\">\(label)") else { return nil }
            let head = text[..<end.lowerBound]
            guard let start = head.range(of: "href=\"", options: .backwards) else { return nil }
            return String(head[start.upperBound...]).replacingOccurrences(of: "&amp;", with: "&")
        }

        let first = app.send("GET", "/audit", headers: viewer.headers)
        #expect(first.status == 200)
        #expect(rows(first.text) == 50)
        #expect(link("← Newer", in: first.text) == nil)
        #expect(first.text.contains("<code>\(staging.id)</code> <span class=\"muted\">(deleted)</span>"))
        var seen = rows(first.text)
        var page = first
        var pages = 1
        while let older = link("Older →", in: page.text) {
            page = app.send("GET", older, headers: viewer.headers)
            #expect(link("← Newer", in: page.text) != nil)
            seen += rows(page.text)
            pages += 1
        }
        #expect(seen == total)
        #expect(pages == (total + 49) / 50)
        // The oldest page names the environment that still exists with a link.
        #expect(page.text.contains("<a href=\"/environments/\(production.id)\">Production</a>"))
        // Back from the oldest page to the newest.
        while let newer = link("← Newer", in: page.text) { page = app.send("GET", newer, headers: viewer.headers) }
        #expect(page.text == app.send("GET", "/audit", headers: viewer.headers).text)

        let robotOnly = app.send("GET", "/audit?actor=tok_robot", headers: viewer.headers)
        #expect(rows(robotOnly.text) == 31)
        #expect(!robotOnly.text.contains("alice@example.com</span>"))
        #expect(robotOnly.text.contains("<option value=\"tok_robot\" selected>Robot (token)</option>"))
        let productionOnly = app.send("GET", "/audit?environment=\(production.id)", headers: viewer.headers)
        #expect(rows(productionOnly.text) == 1)
        #expect(productionOnly.text.contains("environment.create"))
        let both = app.send("GET", "/audit?environment=\(staging.id)&actor=adm_alice", headers: viewer.headers)
        #expect(rows(both.text) == 1)
        #expect(both.text.contains("<code>environment.delete</code>"))
        let none = app.send("GET", "/audit?actor=adm_nobody", headers: viewer.headers)
        #expect(rows(none.text) == 0)
        #expect(none.text.contains("No entry matches these filters."))
    }
}
