import Foundation
import Testing
import ThrowawayPostgres

/// `gatehouse` given a PostgreSQL it cannot use: a clear message, without the password, and exit status 2.
@Suite("Command line on PostgreSQL", .serialized)
struct PostgresCommandLineTests {
    @Test func badConfigurationIsAClearMessageAndExitTwo() throws {
        let database = try ThrowawayPostgres.database()
        let key = ["GATEHOUSE_MASTER_KEY": ThrowawayPostgres.masterKey()]

        let unparsable = try CommandLineTests.run(["migrate", "--database", "postgresql://gh:s3cretpw@[::1/x"], environment: key)
        #expect(unparsable.status == 2)
        #expect(unparsable.error.contains("cannot connect to PostgreSQL at postgresql://gh:***@[::1/x"), "\(unparsable.error)")
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
}
