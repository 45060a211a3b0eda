@testable import Gatehouse
import Testing

/// The one form of `--database` that may be shown: never a PostgreSQL URL, but what libpq parsed from it without
/// the password, and a driver's message scrubbed of the URL and of the password libpq parsed.
@Suite("Database location")
struct DatabaseLocationTests {
    @Test(arguments: [
        ("postgresql://gh:s3cret@db.internal:5432/gatehouse?sslmode=require", "PostgreSQL database gatehouse on db.internal:5432 as gh"),
        ("postgres://gh@db/gatehouse?password=s3cret&sslmode=verify-full", "PostgreSQL database gatehouse on db as gh"),
        ("postgresql://gh:s3cret@db/x?PASSWORD=other", "an unparsable PostgreSQL URL"),
        ("postgresql://gh:p%40ss@db,db2/x", "PostgreSQL database x on db,db2 as gh"),
        // libpq ends the user info at `@` or `/`, not at `?`: the password is `pa?ss`.
        ("postgresql://u:pa?ss@db/x", "PostgreSQL database x on db as u"),
        ("postgresql://gh@db/x", "PostgreSQL database x on db as gh"),
        ("/var/lib/gatehouse/gatehouse.sqlite", "/var/lib/gatehouse/gatehouse.sqlite"),
    ])
    func onlyWhatLibpqParsedIsShown(_ given: String, _ shown: String) {
        #expect(DatabaseLocation(given).redacted == shown)
    }

    @Test func aPasswordWithASlashIsRefusedWithoutQuotingIt() {
        let ambiguity = DatabaseLocation("postgresql://u:pa/ss@db/x").ambiguity
        #expect(ambiguity?.contains("percent-encode") == true)
        for fragment in ["pa/ss", "ss@", "u:pa"] { #expect(ambiguity?.contains(fragment) == false) }
        for fine in ["postgresql://u:pa%2Fss@db/x", "postgresql://db/x?password=a@b", "postgresql://u:pa?ss@db/x", "/tmp/a@b/x.sqlite"] {
            #expect(DatabaseLocation(fine).ambiguity == nil, "\(fine)")
        }
    }

    @Test func aDriversMessageIsScrubbed() {
        let parsable = DatabaseLocation("postgresql://gh:s3cret%21@db/x")
        let message = parsable.scrubbing("could not connect to postgresql://gh:s3cret%21@db/x: s3cret! s3cret%21")
        for secret in ["s3cret", "postgresql://"] { #expect(!message.contains(secret), "\(message)") }
        #expect(message.contains("PostgreSQL database x on db as gh"))

        let unparsable = DatabaseLocation("postgresql://gh:s3cret%21@[::1/x?password=other")
        // libpq quotes a URI it cannot parse, whole or in part.
        let quoted = unparsable.scrubbing("""
            end of string reached when looking for matching "]" in IPv6 host address in URI: "postgresql://gh:s3cret%21@[::1/x?password=other"; invalid URI query parameter: "password=other"
            """)
        for secret in ["s3cret", "other"] { #expect(!quoted.contains(secret), "\(quoted)") }
        #expect(quoted.contains("an unparsable PostgreSQL URL"))
    }
}
