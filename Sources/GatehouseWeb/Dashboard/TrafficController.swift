import Attestation
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
    let outcomes: EnforcementOutcomes
    /// The week's risk metrics per key.
    let refresher: AppleReceiptRefresher
    let clock: TimeSource

    /// Registers this controller's pages (`add` wraps each handler with metrics).
    func register(_ add: Dashboard.AddRoute) {
        add("GET", "/environments/{environmentId}/traffic", pages.html(trafficPage))
        add("GET", "/environments/{environmentId}/traffic/add-digest", pages.html(addDigestPage))
        add("POST", "/environments/{environmentId}/traffic/add-digest", pages.html(addDigestSubmit))
        add("GET", "/environments/{environmentId}/traffic/add-app-id", pages.html(addAppIDPage))
        add("POST", "/environments/{environmentId}/traffic/add-app-id", pages.html(addAppIDSubmit))
        add("GET", "/environments/{environmentId}/traffic/add-boot-key", pages.html(addBootKeyPage))
        add("POST", "/environments/{environmentId}/traffic/add-boot-key", pages.html(addBootKeySubmit))
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
            TrafficChart.Day(start: day.day, counts: TrafficChart.statuses.map { day.counts[$0] ?? 0 })
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
        var values: [String: MustacheValue] = EnvironmentHead.values(environment, tab: "traffic").merging([
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
                    "verified": .string(Wording.number(day.counts[0])), "rejected": .string(Wording.number(day.counts[1])),
                    "forged": .string(Wording.number(day.counts[2])), "unavailable": .string(Wording.number(day.counts[3])),
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
        ]) { _, own in own }
        values["noReasons"] = .bool(summary.topReasons.isEmpty)
        values["api"] = try yourAPI(environment, changes: changes)
        values["iphones"] = try appAttestWeek(environment, rollups: rollups, now: now)
        values["androids"] = androidWeek(rollups: rollups)
        values["keyAttested"] = keyAttestationWeek(rollups: rollups)
        return pages.page("pages/environment-traffic", title: "Traffic · \(environment.name)", values, context: context,
                          section: "environments")
    }

    /// The section "iPhones": per app id, how the week's builds were signed and their bundle versions (iOS 27 and
    /// later), and how many keys had each risk metric from Apple; nil when the environment has no App Attest at all.
    func appAttestWeek(_ environment: Environment, rollups: [VerdictRollup], now: Int64) throws -> MustacheValue {
        let launches = AppAttestLaunches(rollups: rollups)
        let metrics = try refresher.metrics(environmentID: environment.id, from: now - ChecklistThresholds().windowSeconds, to: now + 1)
        guard !environment.appleAppIDs.isEmpty || !launches.apps.isEmpty || metrics.total > 0 else { return .null }
        let accepted = environment.appAttest.policy.validationCategories.map { Set($0.map(\.label)) }
        let most = max(1, metrics.counts.max() ?? 1)
        return [
            "hasLaunches": .bool(!launches.apps.isEmpty),
            "apps": .array(launches.apps.map { app in
                [
                    "appId": .string(app.appID),
                    "total": .string(Wording.number(app.total)),
                    "categories": .array(app.categories.map { category in
                        let outside = category.label != "none" && (accepted.map { !$0.contains(category.label) } ?? (category.label == "development"))
                        return [
                            "label": .string(category.label == "none" ? "no category" : category.label),
                            "count": .string(Wording.number(category.count)),
                            "share": .string(Wording.percent(category.count, of: app.total)),
                            "outside": .bool(outside && environment.kind == .production),
                        ]
                    }),
                    "versions": .array(app.versions.prefix(8).map { version in
                        ["version": .string(version.version == "none" ? "no version" : version.version), "count": .string(Wording.count(version.count, "verdict"))]
                    }),
                ]
            }),
            "hasMetrics": .bool(metrics.total > 0),
            "keys": .string(Wording.count(metrics.total, "key")),
            "metrics": .array(zip(RiskMetricDistribution.labels, metrics.counts).map { label, count in
                ["label": .string(label), "count": .string(Wording.number(count)), "width": .string(String(count * 100 / most))]
            }),
            "deviceCheckKeySet": .bool(environment.appAttest.deviceCheckKey != nil),
        ]
    }

    /// The section "Android phones": the week's version codes, SDK levels, device labels (new and legacy) and testers'
    /// responses; nil when no token decoded this week.
    func androidWeek(rollups: [VerdictRollup]) -> MustacheValue {
        let week = PlayIntegrityWeek(rollups: rollups)
        guard !week.isEmpty else { return .null }
        func rows(_ values: [ObservedValue]) -> MustacheValue {
            .array(values.prefix(8).map { ["value": .string($0.value), "count": .string(Wording.count($0.count, "verdict"))] })
        }
        return [
            "versionCodes": rows(week.versionCodes), "sdkLevels": rows(week.sdkLevels), "deviceLabels": rows(week.deviceLabels),
            "testingResponses": week.testingResponses > 0 ? .string(Wording.count(week.testingResponses, "verdict")) : .null,
        ]
    }

    /// The section "Android phones by key attestation": the week's security levels, boot states, boot keys (named when
    /// published) and patch levels; nil when no key attestation was judged this week.
    func keyAttestationWeek(rollups: [VerdictRollup]) -> MustacheValue {
        let week = KeyAttestationWeek(rollups: rollups)
        guard !week.isEmpty else { return .null }
        func rows(_ values: [ObservedValue]) -> MustacheValue {
            .array(values.prefix(8).map { value in
                ["value": .string(value.value), "count": .string(Wording.count(value.count, "verdict")),
                 "name": PublishedBootKeys.named(value.value).map { .string($0.name) } ?? .null]
            })
        }
        return ["securityLevels": rows(week.securityLevels), "bootStates": rows(week.bootStates), "bootKeys": rows(week.bootKeys),
                "patchLevels": rows(week.patchLevels)]
    }

    /// The section "Your API": the week's judged calls by route and outcome (edge and backends), a chart by day, and
    /// per route the sentence of what enforcing would have refused.
    func yourAPI(_ environment: Environment, changes: [TrafficChart.Change]) throws -> MustacheValue {
        let week = try outcomes.week(environmentID: environment.id, settings: environment.enforcement)
        // Routes without a call this week stay off the table unless configured.
        let routes = week.routes.filter { $0.mode != nil || $0.all.total > 0 }
        let stacked = Array(EnforcementOutcome.allCases.reversed())  // verified at the bottom
        let series = stacked.map(\.rawValue)
        let chart = TrafficChart(series: series.map { "outcome-" + $0 },
                                 days: week.daily.map { day in TrafficChart.Day(start: day.day, counts: stacked.map { day.counts[$0] }) },
                                 changes: changes, titleID: "api-chart-title", title: "Calls to your API per day and outcome")
        let total = week.daily.reduce(0) { $0 + $1.counts.total }
        return [
            "hasCalls": .bool(total > 0),
            "total": .string(Wording.number(total)),
            "chart": .string(chart.svg()),
            "outcomes": .array(series.map { .string($0) }),
            "routes": .array(routes.map { route in
                [
                    "name": .string(route.name),
                    "mode": .string(route.mode?.rawValue ?? "backend only"),
                    "edge": EnforcementController.outcomes(route.edge),
                    "backend": EnforcementController.outcomes(route.backend),
                    "hasBackend": .bool(route.backend.total > 0),
                    "hasEdge": .bool(route.edge.total > 0 || route.backend.total == 0),
                    "sentence": .string(EnforcementWording.wouldRefuse(route)),
                ]
            }),
            "hasRoutes": .bool(!environment.enforcement.routes.isEmpty),
            "hasRouteRows": .bool(!routes.isEmpty),
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
        } else if canEdit, let offer = BootKeyOffer(item, environment: environment) {
            values["addBootKey"] = [
                "name": .string(offer.published.name),
                "href": .string("/environments/\(environment.id)/traffic/add-boot-key?key=\(offer.bootKey)"),
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
