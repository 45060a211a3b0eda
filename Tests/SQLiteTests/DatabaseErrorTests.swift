import SQLite
import Storage
import Testing
import TestSupport

@Suite struct DatabaseErrorTests {
    struct Violation: Sendable, CustomTestStringConvertible {
        let sql: String
        let arguments: [SQLValue]
        let kind: DatabaseError.Kind
        let code: Int32
        let name: String
        var testDescription: String { name }
    }

    static let schema = """
        CREATE TABLE parent (id INTEGER PRIMARY KEY);
        CREATE TABLE child (
            id INTEGER PRIMARY KEY,
            parent_id INTEGER NOT NULL REFERENCES parent (id),
            email TEXT UNIQUE,
            age INTEGER CHECK (age >= 0)
        );
        CREATE TABLE keyed (code TEXT PRIMARY KEY NOT NULL);
        INSERT INTO parent VALUES (1);
        INSERT INTO child VALUES (1, 1, 'taken@example.com', 5);
        INSERT INTO keyed VALUES ('k');
        """

    static let violations: [Violation] = [
        Violation(
            sql: "INSERT INTO child (id, parent_id, email) VALUES (2, 1, ?)", arguments: ["taken@example.com"],
            kind: .uniqueConstraint, code: 2067, name: "SQLITE_CONSTRAINT_UNIQUE"),
        Violation(
            sql: "INSERT INTO child (id, parent_id) VALUES (2, ?)", arguments: [99],
            kind: .foreignKeyConstraint, code: 787, name: "SQLITE_CONSTRAINT_FOREIGNKEY"),
        Violation(
            sql: "DELETE FROM parent WHERE id = ?", arguments: [1],
            kind: .foreignKeyConstraint, code: 787, name: "SQLITE_CONSTRAINT_FOREIGNKEY"),
        Violation(
            sql: "INSERT INTO child (id, parent_id, age) VALUES (2, 1, ?)", arguments: [-1],
            kind: .checkConstraint, code: 275, name: "SQLITE_CONSTRAINT_CHECK"),
        Violation(
            sql: "INSERT INTO child (id, parent_id) VALUES (2, ?)", arguments: [nil],
            kind: .notNullConstraint, code: 1299, name: "SQLITE_CONSTRAINT_NOTNULL"),
        Violation(
            sql: "INSERT INTO child (id, parent_id) VALUES (?, 1)", arguments: [1],
            kind: .primaryKeyConstraint, code: 1555, name: "SQLITE_CONSTRAINT_PRIMARYKEY"),
        Violation(
            sql: "INSERT INTO keyed VALUES (?)", arguments: ["k"],
            kind: .primaryKeyConstraint, code: 1555, name: "SQLITE_CONSTRAINT_PRIMARYKEY"),
        Violation(
            sql: "INSERT INTO nowhere VALUES (?)", arguments: [1], kind: .other, code: 1, name: "SQLITE_ERROR"),
    ]

    @Test(arguments: violations)
    func violationsAreClassifiedAndDescribedWithoutArguments(_ violation: Violation) throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("errors.sqlite"))
        try database.write { try $0.executeScript(Self.schema) }
        let error = try #require(throws: DatabaseError.self) {
            try database.write { try $0.execute(violation.sql, violation.arguments) }
        }
        #expect(error.kind == violation.kind)
        #expect(error.code == violation.code)
        #expect(error.sql == violation.sql)
        #expect(error.description.hasPrefix("SQLite error \(violation.code) (\(violation.name)): \(error.message)"))
        #expect(error.description.hasSuffix(" in: \(violation.sql)"))
        #expect(!error.description.contains("taken@example.com"))
        #expect(try database.read { try $0.queryOne("SELECT count(*) FROM child")?[0] } == .integer(1))
    }

    @Test func aWriterHeldElsewhereIsBusyAfterTheTimeout() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("busy.sqlite")
        let holder = try Database(path: path)
        var configuration = DatabaseConfiguration()
        configuration.busyTimeout = .milliseconds(50)
        let other = try Database(path: path, configuration: configuration)
        let error = try holder.write { _ in
            // `other` is a second writer on the same file, as another process would be.
            try #require(throws: DatabaseError.self) { try other.write { try $0.execute("CREATE TABLE t (v)") } }
        }
        #expect(error.kind == .busy)
        #expect(error.primaryCode == 5)
        #expect(error.description.hasPrefix("SQLite error \(error.code) (SQLITE_BUSY"))
        // Behind the storage seam, a busy writer is the store's transient `busy` (a 503 with Retry-After upstream).
        let failure = try #require(SQLiteEngine(other).failure(of: error))
        #expect(failure.kind == .busy)
    }

    @Test(arguments: violations)
    func violationsAreTheSeamsConstraintKinds(_ violation: Violation) throws {
        let directory = try TemporaryDirectory()
        let engine = SQLiteEngine(try Database(path: directory.file("seam.sqlite")))
        try engine.database.write { try $0.executeScript(Self.schema) }
        let error = try #require(throws: DatabaseError.self) {
            try engine.write { try $0.execute(violation.sql, violation.arguments) }
        }
        let expected: StorageError.Kind = switch violation.kind {
        case .uniqueConstraint, .primaryKeyConstraint: .unique
        case .foreignKeyConstraint: .foreignKey
        case .checkConstraint, .notNullConstraint: .check
        default: .other
        }
        #expect(engine.failure(of: error)?.kind == expected)
        #expect(engine.failure(of: CancellationError()) == nil, "not the engine's error")
    }

    @Test func descriptionWithoutSQLHasNoSuffix() {
        let error = DatabaseError(code: 2067, message: "UNIQUE constraint failed: t.x")
        #expect(error.description == "SQLite error 2067 (SQLITE_CONSTRAINT_UNIQUE): UNIQUE constraint failed: t.x")
        #expect(DatabaseError(code: 19 | (99 << 8), message: "m").description == "SQLite error 25363 (SQLITE_CONSTRAINT): m")
    }
}
