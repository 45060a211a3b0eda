import Foundation

/// What a bench tool that prepares requests was asked on its command line: `NAME DIR REPO COUNT` (prepare COUNT
/// requests in DIR for the checkout REPO) or `NAME profile N` (judge N requests in-process, for a profiler).
public enum BenchCommand {
    case prepare(directory: String, repository: String, count: Int)
    case profile(count: Int)

    /// Parses `arguments` (with the program's name first); prints the usage of `name` and exits 2 when they are
    /// neither form.
    public static func parse(_ arguments: [String], name: String) -> BenchCommand {
        if arguments.count == 3, arguments[1] == "profile" {
            return .profile(count: Int(arguments[2]) ?? 2_000)
        }
        guard arguments.count == 4, let count = Int(arguments[3]), count > 0 else {
            FileHandle.standardError.write(Data("usage: \(name) DIR REPO COUNT | \(name) profile N\n".utf8))
            exit(2)
        }
        return .prepare(directory: arguments[1], repository: arguments[2], count: count)
    }
}
