import Gatehouse
import HTTP
import Mustache

/// The environment's Traffic tab: the setup checklist (failures first), the week's verdicts per day and status with
/// the configuration changes marked, and the reasons seen most.
extension Dashboard {
    func trafficPage(_ request: Request) throws -> Response {
        let context = try self.context(request)
        let environment = try services.environments.get(try request.parameter("environmentId"))
        let now = services.store.clock()
        let report = try services.verdicts.checklist(for: environment)
        let rollups = try services.verdicts.weekRollups(environmentID: environment.id, now: now)
        let summary = Checklist.summarize(rollups: rollups, now: now)
        let daily = try services.verdicts.dailyCounts(environmentID: environment.id, now: now)
        let days = daily.map { day in
            TrafficChart.Day(start: day.day, verified: day.counts["verified"] ?? 0, rejected: day.counts["rejected"] ?? 0,
                             forged: day.counts["forged"] ?? 0, unavailable: day.counts["unavailable"] ?? 0)
        }
        let changes = try configurationChanges(environment.id, from: days.first?.start ?? now)
        let chart = TrafficChart(days: days, changes: changes)
        let canEdit = context.session.admin.role.canEdit

        let items = report.items.map { item($0, environment: environment, rollups: rollups, canEdit: canEdit) }
        // Failures and warnings stay open, and so does an item just fixed, so the admin sees the fix take.
        let shown = report.items.map { $0.status != .ok || $0.title.hasPrefix("Fixed: ") }
        let open = items.enumerated().filter { shown[$0.offset] }.map(\.element)
        let passing = items.enumerated().filter { !shown[$0.offset] }.map(\.element)
        let failCount = report.items.filter { $0.status == .fail }.count
        let warnCount = report.items.filter { $0.status == .warn }.count
        var values: [String: MustacheValue] = [
            "environment": environmentValues(environment),
            "demo": .bool(try Demo.isDemo(environment, store: services.store)),
            "openItems": .array(open),
            "passingItems": .array(passing),
            "passingCount": passing.isEmpty ? .null : .string(Checklist.number(passing.count)),
            "passingPlural": .bool(passing.count != 1),
            "allPass": .bool(failCount == 0 && warnCount == 0),
            "hasOpen": .bool(!open.isEmpty),
            "failCount": failCount > 0 ? .string(Checklist.number(failCount)) : .null,
            "warnCount": warnCount > 0 ? .string(Checklist.number(warnCount)) : .null,
            "chart": .string(chart.svg()),
            "days": .array(days.map { day in
                [
                    "label": .string(TrafficChart.dayLabel(day.start)),
                    "verified": .string(Checklist.number(day.verified)), "rejected": .string(Checklist.number(day.rejected)),
                    "forged": .string(Checklist.number(day.forged)), "unavailable": .string(Checklist.number(day.unavailable)),
                    "total": .string(Checklist.number(day.total)),
                ]
            }),
            "weekTotal": .string(Checklist.number(days.reduce(0) { $0 + $1.total })),
            "changes": .array(changes.map { ["label": .string($0.label)] }),
            "hasChanges": .bool(!changes.isEmpty),
            "reasons": .array(summary.topReasons.map { reason in
                [
                    "reason": .string(reason.reason),
                    "provider": .string(Self.providerName(reason.provider)),
                    "count": .string(Checklist.number(reason.count)),
                    "setup": .bool(reason.setup),
                ]
            }),
        ]
        values["noReasons"] = .bool(summary.topReasons.isEmpty)
        return views.page("pages/environment-traffic", title: "Traffic · \(environment.name)", values, context: context,
                          section: "environments")
    }

    /// What the page header and tabs need of an environment.
    func environmentValues(_ environment: Environment) -> MustacheValue {
        [
            "id": .string(environment.id),
            "name": .string(environment.name),
            "production": .bool(environment.kind == .production),
        ]
    }

    /// One checklist item for the template.
    func item(_ item: ChecklistItem, environment: Environment, rollups: [VerdictRollup], canEdit: Bool) -> MustacheValue {
        let evidence = item.evidence
        let registered = Set(evidence.registered)
        let observed: [MustacheValue] = evidence.observed.map { value in
            let known = registered.contains(value.value)
            return [
                "value": .string(value.value),
                "count": .string(Checklist.number(value.count)),
                "mark": registered.isEmpty ? .null : .string(known ? "registered" : "not registered"),
                "markClass": .string(known ? "ok" : "fail"),
            ]
        }
        var values: [String: MustacheValue] = [
            "id": .string(item.id),
            "status": .string(item.status.rawValue),
            "statusLabel": .string(item.status == .fail ? "fix" : item.status == .warn ? "check" : "ok"),
            "title": .string(item.title),
            "detail": .string(item.detail),
            "fix": item.fix.isEmpty ? .null : .string(item.fix),
            "provider": evidence.provider.map { .string(Self.providerName($0)) } ?? .null,
            "hasCounts": .bool(evidence.verdicts > 0),
            "verdicts": .string(Checklist.number(evidence.verdicts)),
            "failing": evidence.failing > 0 ? .string(Checklist.number(evidence.failing)) : .null,
            "share": .string(evidence.shareText),
            "reasons": .array(evidence.reasons.map { .string($0) }),
            "hasReasons": .bool(!evidence.reasons.isEmpty),
            "observed": .array(observed),
            "hasObserved": .bool(!observed.isEmpty),
            "registered": .array(evidence.registered.map { .string($0) }),
            "hasRegistered": .bool(!evidence.registered.isEmpty),
            "hasEvidence": .bool(evidence.verdicts > 0 || !observed.isEmpty || !evidence.registered.isEmpty),
        ]
        if canEdit, let add = addDigestOffer(item, environment: environment, rollups: rollups) {
            values["addDigest"] = [
                "package": .string(add.package), "digest": .string(add.digest),
                "href": .string("/environments/\(environment.id)/traffic/add-digest?package=\(Self.queryEncode(add.package))&digest=\(Self.queryEncode(add.digest))"),
            ]
        }
        return .dictionary(values)
    }

    /// For a failing `android.certificateNotRegistered`: the top observed digest and the registered package it
    /// should be added to, when it is not registered there yet. The package is the one phones ran most with the
    /// mismatch, or the only app.
    func addDigestOffer(_ item: ChecklistItem, environment: Environment, rollups: [VerdictRollup]) -> (package: String, digest: String)? {
        guard item.id == SetupItem.certificateNotRegistered.rawValue, item.status != .ok,
              let top = item.evidence.observed.first, let bytes = CertificateDigest.parse(top.value) else { return nil }
        var packages: [String: Int] = [:]
        for row in rollups where row.provider == "play-integrity" && row.reason == "certificateMismatch" {
            for value in row.observed where value.field == "packageName" { packages[value.value, default: 0] += value.count }
        }
        let topPackage = packages.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        let apps = environment.androidApps
        guard let app = apps.first(where: { $0.packageName == topPackage }) ?? (apps.count == 1 ? apps.first : nil),
              !app.certificateDigests.contains(bytes) else { return nil }
        return (app.packageName, CertificateDigest.format(bytes))
    }

    /// The environment's configuration changes since `from` (updates and key changes), oldest first, for the chart.
    func configurationChanges(_ environmentID: String, from: Int64) throws -> [TrafficChart.Change] {
        let entries = try services.audit.list(environmentID: environmentID, limit: 200).entries
        return entries.reversed().filter { entry in
            entry.at >= from && (entry.action == "environment.update" || entry.action.hasPrefix("key."))
        }.map { entry in
            let fields = entry.changes.array?.compactMap { $0["field"]?.string } ?? []
            let who = entry.actor.name ?? entry.actor.kind.rawValue
            let what = entry.action == "environment.update"
                ? "changed " + (fields.isEmpty ? "the environment" : fields.joined(separator: ", "))
                : Self.keyActions[entry.action] ?? entry.action
            return TrafficChart.Change(at: entry.at, label: "\(TrafficChart.time(entry.at)): \(who) \(what)")
        }
    }

    static let keyActions = ["key.create": "created a key", "key.roll": "rolled a key", "key.revoke": "revoked a key"]

    static func providerName(_ provider: String) -> String {
        switch provider {
        case "play-integrity": "Play Integrity"
        case "app-attest": "App Attest"
        default: provider
        }
    }
}
