import Foundation

/// The command line of a bench tool that prepares requests: `NAME DIR REPO COUNT` (prepare COUNT requests in DIR for
/// the checkout REPO) or `NAME profile N` (judge N requests in-process, for a profiler).
public enum BenchCommand {
    /// What to prepare, or nil once `profile` ran. Prints the usage of `name` and exits 2 when `arguments` (the
    /// program's name first) are neither form.
    public static func preparation(_ arguments: [String], name: String, profile: (Int) throws -> Void) rethrows
        -> (directory: String, repository: String, count: Int)? {
        if arguments.count == 3, arguments[1] == "profile" {
            try profile(Int(arguments[2]) ?? 2_000)
            return nil
        }
        guard arguments.count == 4, let count = Int(arguments[3]), count > 0 else {
            FileHandle.standardError.write(Data("usage: \(name) DIR REPO COUNT | \(name) profile N\n".utf8))
            exit(2)
        }
        return (arguments[1], arguments[2], count)
    }
}
