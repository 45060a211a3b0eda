import Foundation

/// The repository's root folder, found from this file's path (Tests/Support/TestSupport/): the one way the tests find
/// the project's own files (migrations, templates, the scripts under Tests/).
public let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.path
}()
