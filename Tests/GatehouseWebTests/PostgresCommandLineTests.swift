import Foundation
import Testing
import ThrowawayPostgres

/// `gatehouse` given a PostgreSQL it cannot use: a clear message, without the password, and exit status 2.
@Suite("Command line on PostgreSQL", .serialized, .enabled(if: !ThrowawayPostgres.endToEnd, "on PostgreSQL in every pass already"))
struct PostgresCommandLineTests {
    @Test func badConfigurationIsAClearMessageAndExitTwo() throws {
        let database = try ThrowawayPostgres.database()
        let key = ["GATEHOUSE_MASTER_KEY": ThrowawayPostgres.masterKey()]

        let unparsable = try CommandLineTests.run(["migrate", "--database", "postgresql://gh:s3cretpw@[::1/x"], environment: key)
        #expect(unparsable.status == 2)
        #expect(unparsable.error.contains("cannot connect to an unparsable PostgreSQL URL"), "\(unparsable.error)")
        #expect(!unparsable.error.contains("postgresql://"), "\(unparsable.error)")
        #expect(!unparsable.error.contains("s3cretpw"), "\(unparsable.error)")

        // A role the server does not know: refused as a wrong password is (the test cluster trusts every password).
        let refusedURL = database.url.replacingOccurrences(of: "://postgres@", with: "://nosuchrole:s3cretpw@")
        #expect(refusedURL != database.url)
        let refused = try CommandLineTests.run(["serve", "--port", "0", "--database", refusedURL], environment: key)
        #expect(refused.status == 2)
        #expect(refused.error.contains("role \"nosuchrole\" does not exist"), "\(refused.error)")
        #expect(!refused.error.contains("s3cretpw"), "\(refused.error)")

        #expect(try CommandLineTests.run(["migrate", "--database", database.url], environment: key).status == 0)
        let admin = try ThrowawayPostgres.adminConnection(database)
        try admin.script("INSERT INTO schema_migrations (name, sha256, applied_at) VALUES ('9999_from_a_newer_build', 'x', 'now')")
        let newer = try CommandLineTests.run(["serve", "--port", "0", "--database", database.url], environment: key)
        #expect(newer.status == 2)
        #expect(newer.error.contains("9999_from_a_newer_build.sql applied, which this build does not have"), "\(newer.error)")
    }

    /// libpq ends the user info at the first `@` or `/`, not at `?`: a password holding `?` is still a password
    /// (never printed: what is shown is what libpq parsed, without it), and one holding `/` is refused at start-up
    /// without quoting the URL.
    @Test func passwordsWithReservedCharactersAreNeverPrinted() throws {
        let database = try ThrowawayPostgres.database()
        let key = ["GATEHOUSE_MASTER_KEY": ThrowawayPostgres.masterKey()]
        // The throwaway cluster trusts every password: this one is sent and ignored.
        let withQuestionMark = database.url.replacingOccurrences(of: "://postgres@", with: "://postgres:pa?ss@")
        #expect(withQuestionMark != database.url)
        let migrated = try CommandLineTests.run(["migrate", "--database", withQuestionMark], environment: key)
        #expect(migrated.status == 0, "\(migrated.error)")
        #expect(migrated.output.contains("PostgreSQL database gatehouse_"), "\(migrated.output)")
        #expect(migrated.output.contains(" as postgres"), "\(migrated.output)")
        for text in [migrated.output, migrated.error] { #expect(!text.contains("pa?ss") && !text.contains("postgresql://"), "\(text)") }

        let refused = try CommandLineTests.run(["migrate", "--database", "postgresql://u:pa?ss@127.0.0.1:1/x"], environment: key)
        #expect(refused.status == 2)
        #expect(refused.error.contains("cannot connect to PostgreSQL database x on 127.0.0.1:1 as u"), "\(refused.error)")
        #expect(!refused.error.contains("pa?ss"), "\(refused.error)")

        let slash = try CommandLineTests.run(["migrate", "--database", "postgresql://u:pa/ss@127.0.0.1:1/x"], environment: key)
        #expect(slash.status == 2)
        #expect(slash.error.contains("percent-encode"), "\(slash.error)")
        for fragment in ["pa/ss", "ss@", "u:pa", "127.0.0.1:1"] { #expect(!slash.error.contains(fragment), "\(fragment) in \(slash.error)") }
    }

    @Test func cachesResetAnnouncesOnPostgreSQLAndSaysWhatToDoOnSQLite() throws {
        let database = try ThrowawayPostgres.database()
        let key = ["GATEHOUSE_MASTER_KEY": ThrowawayPostgres.masterKey()]
        #expect(try CommandLineTests.run(["migrate", "--database", database.url], environment: key).status == 0)
        let admin = try ThrowawayPostgres.adminConnection(database)
        let before = try admin.queryOne("SELECT SUM(revision) AS total FROM revisions")?.int("total") ?? 0
        let reset = try CommandLineTests.run(["caches", "reset", "--database", database.url], environment: key)
        #expect(reset.status == 0, "\(reset.error)")
        #expect(reset.output.contains("forgets what it cached"))
        let after = try admin.queryOne("SELECT SUM(revision) AS total FROM revisions")?.int("total") ?? 0
        let rows = try admin.queryOne("SELECT COUNT(*) AS n FROM revisions")?.int("n") ?? 0
        #expect(after == before + rows, "every revision moved on")
        let sqlite = try CommandLineTests.run(["caches", "reset", "--database", try CommandLineTests.temporaryDatabase()])
        #expect(sqlite.status == 2)
        #expect(sqlite.error.contains("restart it"))
    }
}
