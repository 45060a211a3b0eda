import Foundation
import Simulator
import Testing
import ThrowawayPostgres

/// The login throttle counts by the admin an e-mail finds, not by the text typed: on PostgreSQL the e-mail is matched
/// with a case-insensitive ICU collation that also equates spellings with soft hyphens, zero-width spaces or
/// fullwidth letters, and each of those must count against the same admin. A real `gatehouse serve` on the
/// throwaway PostgreSQL, a guesser behind a trusted proxy changing address and spelling at every attempt.
@Suite("Dashboard: the login throttle on PostgreSQL", .serialized, .enabled(if: !ThrowawayPostgres.endToEnd, "on PostgreSQL in every pass already"), .needsSyntheticCA)
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
        // Twelve guesses, each from a fresh address in another spelling. Before, each spelling was a throttle subject
        // of its own and every guess was judged (12 × 401). Now they all count against the admin: from the sixth on,
        // guesses wait (the delay doubles from 1 s after five failures, so even a stalled machine meets it again).
        var statuses: [Int] = []
        for (i, spelling) in (spellings + spellings + spellings.prefix(2)).enumerated() {
            let guess = try browser.signIn(spelling, "wrong guess \(i)", headers: [("X-Forwarded-For", "198.51.100.\(i + 1)")])
            statuses.append(guess.status)
            #expect(DashboardBrowser.cookie("gatehouse_session", in: guess) == nil)
        }
        #expect(Array(statuses.prefix(5)) == [401, 401, 401, 401, 401], "\(statuses)")
        #expect(statuses.contains(429), "guesses in other spellings never met the admin's throttle: \(statuses)")
        #expect(statuses.filter { $0 == 401 }.count < statuses.count - 2, "\(statuses)")
    }
}
