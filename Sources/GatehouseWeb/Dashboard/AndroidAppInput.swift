import Foundation
import Gatehouse
import JSON
import Mustache

/// The "Android app" form as typed: a package name, certificate digests one per line, the outsidePlay box. It turns
/// into the JSON the Management API takes (so `EnvironmentPatch.parse` judges it by the same rules) and maps the
/// rejected pointers back to its fields, naming a bad digest by its line.
struct AndroidAppInput: Sendable {
    var packageName: String
    var digestsText: String
    var outsidePlay: Bool
    /// The non-blank lines of `digestsText` with their 1-based line numbers; the n-th is the API's digest n.
    var lines: [(number: Int, text: String)]

    init(form: Form) {
        packageName = (form["packageName"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        digestsText = form["certificateDigests"] ?? ""
        outsidePlay = form["outsidePlay"] != nil
        lines = Self.lines(digestsText)
    }

    init(app: AndroidApp) {
        packageName = app.packageName
        digestsText = app.certificateDigests.map(CertificateDigest.format).joined(separator: "\n")
        outsidePlay = app.outsidePlay
        lines = Self.lines(digestsText)
    }

    init() {
        packageName = ""
        digestsText = ""
        outsidePlay = false
        lines = []
    }

    static func lines(_ text: String) -> [(number: Int, text: String)] {
        text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().compactMap { i, line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : (i + 1, trimmed)
        }
    }

    /// One `androidApps[]` element in the API's wire format.
    var json: JSON {
        .object([
            .init("packageName", .string(packageName)),
            .init("certificateDigests", .array(lines.map { .string($0.text) })),
            .init("outsidePlay", .bool(outsidePlay)),
        ])
    }

    /// The form's values for `partials/environment-android-form`, with `error`'s messages beside their fields when
    /// this app was element `index` of the validated `androidApps`.
    func values(action: String, submit: String, error: ValidationError?, index: Int) -> MustacheValue {
        var fields: [String: MustacheValue] = [:]
        var digestErrors: [MustacheValue] = []
        var general: [MustacheValue] = []
        let prefix = "/androidApps/\(index)"
        for e in error?.errors ?? [] {
            guard e.pointer.hasPrefix(prefix + "/") else {
                general.append(.string(e.message))
                continue
            }
            let rest = e.pointer.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
            switch (rest.first.map(String.init), rest.count) {
            case ("packageName", 1):
                fields["packageName"] = .string(e.message.hasPrefix("duplicates")
                    ? "is already registered in this environment: edit that app to add digests to it" : e.message)
            case ("certificateDigests", 2):
                let k = Int(rest[1]) ?? -1
                let line = lines.indices.contains(k) ? lines[k].number : k + 1
                digestErrors.append(.string("Line \(line): \(e.message)"))
            case ("certificateDigests", _):
                fields["certificateDigests"] = .string(e.message)
            default:
                general.append(.string(e.message))
            }
        }
        return [
            "action": .string(action),
            "submit": .string(submit),
            "packageName": .string(packageName),
            "digests": .string(digestsText),
            "outsidePlay": .bool(outsidePlay),
            "errors": .dictionary(fields),
            "digestErrors": .array(digestErrors),
            "digestsInvalid": .bool(!digestErrors.isEmpty || fields["certificateDigests"] != nil),
            "general": .array(general),
            "invalid": .bool(error != nil),
        ]
    }
}
