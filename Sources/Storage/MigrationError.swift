/// Why the `Migrator` refused to run or stopped. Each description names the file and says what to do.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// An applied migration's file no longer has the SHA-256 recorded when it was applied.
    case changed(String)
    /// An applied migration's file is gone from the directory.
    case missing(String)
    /// The database has a migration applied that is numbered past every file: a newer version migrated it.
    case newerThanCode(String)
    /// A `.sql` file in the directory is not named `NNNN_name.sql`.
    case badFileName(String)
    /// Two files share a number (the two file names).
    case duplicateNumber(String, String)
    /// The directory or a file in it could not be read (path, reason).
    case unreadable(String, String)
    /// A migration failed and was rolled back (file name, the engine's error).
    case failed(String, any Error & Sendable)

    /// A message for the operator: what is wrong, with which file, and what to do.
    public var description: String {
        switch self {
        case .changed(let file):
            "Migration \(file) was edited after it was applied to this database (its SHA-256 differs from the one "
                + "recorded in schema_migrations). Applied migrations must never change: restore the original file "
                + "and put the change in a new migration with the next number."
        case .missing(let file):
            "Migration \(file) was applied to this database but its file is missing. Restore the file (from version "
                + "control); applied migrations must never be deleted or renamed."
        case .newerThanCode(let file):
            "The database has migration \(file) applied, which this build does not have: a newer version of the "
                + "program migrated it. Run that newer version, or restore a backup taken before the upgrade."
        case .badFileName(let file):
            "Migration file \(file) is not named NNNN_name.sql (four digits, an underscore, then letters, digits, "
                + "'_' or '-'). Rename it, or give it another extension if it is not a migration."
        case .duplicateNumber(let first, let second):
            "Migration files \(first) and \(second) share a number. Renumber the one that has not shipped yet."
        case .unreadable(let path, let reason):
            "Cannot read migrations at \(path): \(reason). Check the path and its permissions."
        case .failed(let file, let error):
            "Migration \(file) failed and was rolled back: \(error). Fix the file (it was not applied) and run again."
        }
    }
}
