import Gatehouse
import HTTP
import HTTPServer
import Mustache

/// The environment's Traffic tab: the setup checklist (failures first), the week's verdicts per day and status with
/// the configuration changes marked, and the reasons seen most.
struct TrafficController: Sendable {
    let pages: Pages
    let environments: Environments
    let verdicts: Verdicts
    let checklists: ChecklistService
    let audit: AuditLog
    let clock: TimeSource

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/environments/{environmentId}/traffic", pages.html(trafficPage))
        add("GET", "/environments/{environmentId}/traffic/add-digest", pages.html(addDigestPage))
        add("POST", "/environments/{environmentId}/traffic/add-digest", pages.html(addDigestSubmit))
        add("GET", "/environments/{environmentId}/traffic/add-app-id", pages.html(addAppIDPage))
        add("POST", "/environments/{environmentId}/traffic/add-app-id", pages.html(addAppIDSubmit))
    }

    func trafficPage(_ request: Request) throws -> Response {
        let context = try pages.context(request)
        let environment = try environments.get(try request.parameter("environmentId"))
        let now = clock()
        let report = try checklists.report(for: environment)
        let rollups = try verdicts.weekRollups(environmentID: environment.id, now: now)
        let summary = Checklist.summarize(rollups: rollups, now: now)
        let daily = try verdicts.dailyCounts(environmentID: environment.id, now: now)
        let days = daily.map { day in
            TrafficChart.Day(start: day.day, verified: day.counts["verified"] ?? 0, rejected: day.counts["rejected"] ?? 0,
                             forged: day.counts["forged"] ?? 0, unavailable: day.counts["unavailable"] ?? 0)
        }
        let changes = try configurationChanges(environment.id, from: days.first?.start ?? now)
        let chart = TrafficChart(days: days, changes: changes)
        let canEdit = context.session.admin.role.canEdit

        let items = report.items.map { item($0, environment: environment, rollups: rollups, canEdit: canEdit) }
        // Failures and warnings stay open, and so does an item just fixed, so the admin sees the fix take.
        let shown = report.items.map { $0.status != .ok || $0.fixed }
        let open = items.enumerated().filter { shown[$0.offset] }.map(\.element)
        let passing = items.enumerated().filter { !shown[$0.offset] }.map(\.element)
        let failCount = report.items.filter { $0.status == .fail }.count
        let warnCount = report.items.filter { $0.status == .warn }.count
        var values: [String: MustacheValue] = [
            "environment": EnvironmentHead.summary(environment),
            "demo": .bool(try Demo.isDemo(environment, audit: audit)),
            "openItems": .array(open),
            "passingItems": .array(passing),
            "passingCount": passing.isEmpty ? .null : .string(Wording.number(passing.count)),
            "passingPlural": .bool(passing.count != 1),
            "allPass": .bool(failCount == 0 && warnCount == 0),
            "hasOpen": .bool(!open.isEmpty),
            "failCount": failCount > 0 ? .string(Wording.number(failCount)) : .null,
            "warnCount": warnCount > 0 ? .string(Wording.number(warnCount)) : .null,
            "chart": .string(chart.svg()),
            "days": .array(days.map { day in
                [
                    "label": .string(TrafficChart.dayLabel(day.start)),
                    "verified": .string(Wording.number(day.verified)), "rejected": .string(Wording.number(day.rejected)),
                    "forged": .string(Wording.number(day.forged)), "unavailable": .string(Wording.number(day.unavailable)),
                    "total": .string(Wording.number(day.total)),
                ]
            }),
            "providerDays": .array(daily.map { day in
                [
                    "label": .string(TrafficChart.dayLabel(day.day)),
                    "appAttest": .string(Wording.number(day.providers[Provider.appAttest] ?? 0)),
                    "playIntegrity": .string(Wording.number(day.providers[Provider.playIntegrity] ?? 0)),
                    "debug": .string(Wording.number(day.providers[Provider.debug] ?? 0)),
                ]
            }),
            "weekTotal": .string(Wording.number(days.reduce(0) { $0 + $1.total })),
            "changes": .array(changes.map { ["label": .string($0.label)] }),
            "hasChanges": .bool(!changes.isEmpty),
            "reasons": .array(summary.topReasons.map { reason in
                [
                    "reason": .string(reason.reason),
                    "provider": .string(Provider.displayName(reason.provider)),
                    "count": .string(Wording.number(reason.count)),
                    "setup": .bool(reason.setup),
                ]
            }),
        ]
        values["noReasons"] = .bool(summary.topReasons.isEmpty)
        return pages.page("pages/environment-traffic", title: "Traffic · \(environment.name)", values, context: context,
                          section: "environments")
    }

    /// One checklist item for the template.
    func item(_ item: ChecklistItem, environment: Environment, rollups: [VerdictRollup], canEdit: Bool) -> MustacheValue {
        let evidence = item.evidence
        let registered = Set(evidence.registered)
        let observed: [MustacheValue] = evidence.observed.map { value in
            let known = registered.contains(value.value)
            return [
                "value": .string(value.value),
                "count": .string(Wording.number(value.count)),
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
            "provider": evidence.provider.map { .string(Provider.displayName($0)) } ?? .null,
            "hasCounts": .bool(evidence.verdicts > 0),
            "verdicts": .string(Wording.number(evidence.verdicts)),
            "failing": evidence.failing > 0 ? .string(Wording.number(evidence.failing)) : .null,
            "share": .string(evidence.shareText),
            "reasons": .array(evidence.reasons.map { .string($0) }),
            "hasReasons": .bool(!evidence.reasons.isEmpty),
            "observed": .array(observed),
            "hasObserved": .bool(!observed.isEmpty),
            "registered": .array(evidence.registered.map { .string($0) }),
            "hasRegistered": .bool(!evidence.registered.isEmpty),
            "hasEvidence": .bool(evidence.verdicts > 0 || !observed.isEmpty || !evidence.registered.isEmpty),
        ]
        if canEdit, let offer = DigestOffer(item, environment: environment, rollups: rollups) {
            let digest = CertificateDigest.format(offer.digest)
            values["addDigest"] = [
                "package": .string(offer.packageName), "digest": .string(digest),
                "href": .string("/environments/\(environment.id)/traffic/add-digest?package=\(URLEncoding.percentEncode(offer.packageName))&digest=\(URLEncoding.percentEncode(digest))"),
            ]
        } else if canEdit, let offer = AppIDOffer(item, environment: environment) {
            values["addAppId"] = [
                "appId": .string(offer.appID),
                "href": .string("/environments/\(environment.id)/traffic/add-app-id?appId=\(URLEncoding.percentEncode(offer.appID))"),
            ]
        } else if DigestOffer.looksResigned(item, rollups: rollups) {
            values["resigned"] = .string("Google did not recognize the binaries that carry these certificates (not PLAY_RECOGNIZED): they look like copies of your app re-signed by someone else, not your own builds. Do not register them; no digest is offered.")
        }
        return .dictionary(values)
    }

    /// The environment's configuration changes since `from` (updates and key changes), oldest first, for the chart.
    func configurationChanges(_ environmentID: String, from: Int64) throws -> [TrafficChart.Change] {
        try audit.configurationChanges(environmentID: environmentID, since: from).map { entry in
            let fields = entry.changedFields
            let who = entry.actor.name ?? entry.actor.kind.rawValue
            let what = entry.action == "environment.update"
                ? "changed " + (fields.isEmpty ? "the environment" : fields.joined(separator: ", "))
                : Self.keyActions[entry.action] ?? entry.action
            return TrafficChart.Change(at: entry.at, label: "\(Dates.minute(entry.at)): \(who) \(what)")
        }
    }

    static let keyActions = ["key.create": "created a key", "key.roll": "rolled a key", "key.revoke": "revoked a key"]
}
