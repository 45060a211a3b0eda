import Foundation

extension TemplateLibrary {
    /// Loads every `*.mustache` file under `directory`, recursively; a template's name is its path relative to the
    /// directory without the extension (`layouts/main`, `pages/environments`). Throws `TemplateError` when the
    /// directory or a file cannot be read, a file links outside the directory, or for anything
    /// `init(templates:)` refuses (the error names the file, line and column).
    public init(directory: String, limits: TemplateLimits = TemplateLimits()) throws(TemplateError) {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TemplateError(file: directory, line: 0, column: 0, message: "template directory does not exist")
        }
        let root = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path
        guard let enumerator = files.enumerator(atPath: root) else {
            throw TemplateError(file: directory, line: 0, column: 0, message: "template directory cannot be listed")
        }
        var paths: [String] = []
        while let path = enumerator.nextObject() as? String {
            if path.hasSuffix(".mustache") { paths.append(path) }
        }
        var parsed: [Template] = []
        for path in paths.sorted() {
            let full = root + "/" + path
            let resolved = URL(fileURLWithPath: full).resolvingSymlinksInPath().path
            guard resolved.hasPrefix(root + "/") else {
                throw TemplateError(file: path, line: 0, column: 0,
                                    message: "links to \(resolved), outside the template directory")
            }
            var isFolder: ObjCBool = false
            guard files.fileExists(atPath: resolved, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            guard let data = files.contents(atPath: resolved) else {
                throw TemplateError(file: path, line: 0, column: 0, message: "cannot be read")
            }
            let name = String(path.dropLast(".mustache".count))
            parsed.append(try Template(String(decoding: data, as: UTF8.self), name: name, file: path, limits: limits))
        }
        try self.init(parsed: parsed, limits: limits)
    }
}
