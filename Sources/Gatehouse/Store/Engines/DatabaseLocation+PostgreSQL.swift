import Foundation
import PostgreSQL

/// The forms of a database location that may be shown: for PostgreSQL, what libpq parsed (host, port, database,
/// user), never the URL, whose password libpq may find where a reader of the text would not.
extension DatabaseLocation {
    /// The location for logs and messages: a SQLite path as given; for PostgreSQL `PostgreSQL database D on HOST:PORT
    /// as USER` (the parts libpq reads, those given), or `an unparsable PostgreSQL URL`.
    public var redacted: String {
        guard isPostgres else { return value }
        guard let info = try? PostgresConnectionInfo(parsing: value) else { return "an unparsable PostgreSQL URL" }
        var text = "PostgreSQL database \(info.database ?? info.user ?? "(default)")"
        if let host = info.host, !host.isEmpty {
            let port = info.port.flatMap { $0.contains(where: { $0 != "," }) ? ":" + $0 : nil } ?? ""
            text += " on \(host)\(port)"
        }
        if let user = info.user, !user.isEmpty { text += " as \(user)" }
        return text
    }

    /// `message` (a driver's, which may quote the URL, or a part of one it could not parse) with the URL replaced by
    /// ``redacted``, the password libpq parsed (as given and percent-encoded) by `***`, and, for a URL libpq cannot
    /// parse, every quoted part of the URL's text by `"…"`.
    public func scrubbing(_ message: String) -> String {
        guard isPostgres else { return message }
        var text = message.replacingOccurrences(of: value, with: redacted)
        if let info = try? PostgresConnectionInfo(parsing: value) {
            if let password = info.password, !password.isEmpty {
                var forms = [password]
                if let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) { forms.append(encoded) }
                for form in forms { text = text.replacingOccurrences(of: form, with: "***") }
            }
            return text
        }
        // libpq quotes the piece it stopped at: hide each quoted piece that comes from the URL.
        let parts = text.components(separatedBy: "\"")
        return parts.enumerated().map { i, part in
            i % 2 == 1 && !part.isEmpty && (value.contains(part) || (value.removingPercentEncoding ?? "").contains(part)) ? "…" : part
        }.joined(separator: "\"")
    }
}
