import Foundation
import Gatehouse
import HTTP
import HTTPServer
import JSON
import Mustache

/// The audit log: who changed what and when, newest first, filtered by environment and actor, 50 a page.
/// Values are as the domain recorded them (secrets already written as "[sealed]").
struct AuditController: Sendable {
    let pages: Pages
    let audit: AuditLog
    let environments: Environments

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/audit", pages.html(auditPage))
    }

    static let auditPageSize = 50

    func auditPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environmentID = request.queryValue("environment").flatMap { $0.isEmpty ? nil : $0 }
        let actorID = request.queryValue("actor").flatMap { $0.isEmpty ? nil : $0 }
        let before = request.queryValue("before").flatMap { Int64($0) }.flatMap { $0 > 0 ? $0 : nil }
        let after = request.queryValue("after").flatMap { Int64($0) }.flatMap { $0 > 0 ? $0 : nil }
        let page = try audit.page(environmentID: environmentID, actorID: actorID, limit: Self.auditPageSize, before: before, after: after)
        let environments = try environments.list()
        let names = Dictionary(environments.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var actors = try audit.actors()
        if let actorID, !actors.contains(where: { $0.id == actorID }) { actors.append(AuditActor(kind: .admin, id: actorID, name: nil)) }

        var filter: [String] = []
        if let environmentID { filter.append("environment=" + URLEncoding.percentEncode(environmentID)) }
        if let actorID { filter.append("actor=" + URLEncoding.percentEncode(actorID)) }
        func link(_ cursor: String) -> MustacheValue { .string("/audit?" + (filter + [cursor]).joined(separator: "&")) }

        return pages.page("pages/audit", title: "Audit log", [
            "entries": .array(page.entries.map { auditRow($0, names: names) }),
            "empty": .bool(page.entries.isEmpty),
            "filtered": .bool(environmentID != nil || actorID != nil),
            "environments": .array(environments.map { ["id": .string($0.id), "name": .string($0.name), "selected": .bool($0.id == environmentID)] }),
            "actors": .array(actors.map { actor in
                let id = actor.id ?? ""
                let label = "\(actor.name ?? id) (\(actor.kind == .token ? "token" : actor.kind.rawValue))"
                return ["id": .string(id), "label": .string(actor.name == nil ? id : label), "selected": .bool(id == actorID)]
            }),
            "paged": .bool(page.older != nil || page.newer != nil),
            "older": page.older.map { link("before=\($0)") } ?? .null,
            "newer": page.newer.map { link("after=\($0)") } ?? .null,
        ], context: context, section: "audit")
    }

    func auditRow(_ entry: AuditEntry, names: [String: String]) -> MustacheValue {
        var row: [String: MustacheValue] = [
            "at": Dates.value(entry.at),
            "actorKind": .string(entry.actor.kind.rawValue),
            "actorName": .string(entry.actor.name ?? entry.actor.id ?? "—"),
            "actorID": entry.actor.id.map { .string($0) } ?? .null,
            "action": .string(entry.action),
        ]
        if let id = entry.environmentID {
            row["environment"] = names[id].map { ["id": .string(id), "name": .string($0), "exists": true] } ?? ["id": .string(id), "exists": false]
        }
        row["changes"] = .array((entry.changes.array ?? []).map { change in
            [
                "field": .string(change["field"]?.string ?? ""),
                "before": Self.compact(change["before"] ?? .null),
                "after": Self.compact(change["after"] ?? .null),
            ]
        })
        return .dictionary(row)
    }

    /// A recorded value in a few words: strings as they are, nothing as nil (the template shows "—"), anything else
    /// as compact JSON cut at 200 characters.
    static func compact(_ value: JSON) -> MustacheValue {
        switch value {
        case .null: return .null
        case .string(let s): return .string(s)
        default:
            let text = value.text
            return .string(text.count > 200 ? String(text.prefix(199)) + "…" : text)
        }
    }
}
