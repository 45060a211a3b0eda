import Foundation
import Simulator
import Testing

/// The login throttle counts by the admin an e-mail finds, not by the text typed: on PostgreSQL the e-mail is matched
/// with a case-insensitive ICU collation that also equates spellings with soft hyphens, zero-width spaces or
/// fullwidth letters, and each of those must count against the same admin. A real `gatehouse serve` on the
/// throwaway PostgreSQL, a guesser behind a trusted proxy changing address and spelling at every attempt.
@Suite("Dashboard: the login throttle on PostgreSQL", .serialized)
struct LoginSpellingsTests {
    static let password = "correct horse battery staple"

    @Test func everySpellingOfAnAdminsEmailCountsAgainstThatAdmin() throws {
        let server = try DeviceServer(["--trusted-proxies", "1"], postgres: true)
        let browser = DashboardBrowser(client: server.client)
        try browser.createOwner(setupPath: try server.setupPath(), email: "admin@example.com", password: Self.password)
        let spellings = [
            "adm\u{00AD}in@example.com",            // a soft hyphen
            "ad\u{200B}min@example.com",            // a zero-width space
            "\u{FF41}\u{FF44}\u{FF4D}\u{FF49}\u{FF4E}@example.com",  // fullwidth letters
            "ADMIN@EXAMPLE.COM",
            "a\u{00AD}d\u{200B}min@example.com",
        ]
        for (i, spelling) in spellings.enumerated() {
            let guess = try browser.signIn(spelling, "wrong guess \(i)", headers: [("X-Forwarded-For", "198.51.100.\(i + 1)")])
            #expect(guess.status == 401, "guess \(i) (\(spelling)): \(guess.status)")
        }
        // Five failures against the admin, whatever the spelling: the next attempt, right password and a fresh
        // address, must wait.
        let next = try browser.signIn("admin@example.com", Self.password, headers: [("X-Forwarded-For", "198.51.100.99")])
        #expect(next.status == 429, "after \(spellings.count) guesses in other spellings the admin was not throttled: \(next.status)")
        #expect(DashboardBrowser.cookie("gatehouse_session", in: next) == nil)
    }
}
