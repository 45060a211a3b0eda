import Crypto
import Synchronization
import JSON
import Storage

extension Webhooks {
    /// The alerts job (`gh-alerts`: the checklists announced every 30 seconds, or every hold when shorter, old events
    /// purged every hour), then the
    /// delivery job (`gh-webhooks`, every second).
    func jobs(environments: Environments, checklists: ChecklistService, outcomes: EnforcementOutcomes, hold: Int64) -> [BackgroundJob] {
        let lastPurge = Mutex<Int64>(0)
        return [
            BackgroundJob(name: "gh-alerts", run: { [self] _ in
                log.failing("announcing checklist changes to webhooks failed") {
                    for environment in try environments.list() {
                        try announce(environment, try checklists.report(for: environment), hold: hold)
                        if environment.enforcement.routes.contains(where: { environment.enforcement.mode(of: $0) == .enforce }) {
                            try announceRefusals(environment, lastHour: try outcomes.lastHour(environmentID: environment.id))
                        }
                    }
                }
                let now = store.clock()
                if lastPurge.withLock({ now - $0 >= 3_600 }) {
                    log.failing("purging old webhook events failed") { try purge() }
                    lastPurge.withLock { $0 = now }
                }
                return Double(min(30, hold))
            }),
            BackgroundJob(name: "gh-webhooks", run: { [self] onItsThread in deliverDue(onItsThread: onItsThread) }),
        ]
    }

    /// Announces the items of `report` whose status moved from the one last announced (docs/device-api.md "Events",
    /// `checklist.*`): at most one event per item and hold; a change within the hold waits for its end, and is sent
    /// then only if the status still differs from the one announced (a flap that ends where it began sends nothing).
    /// An item seen for the first time is its own baseline. Of servers doing this at once, one announces (the move is
    /// a conditional UPDATE of the state read, in the transaction that writes the event).
    func announce(_ environment: Environment, _ report: ChecklistReport, hold: Int64) throws {
        let now = store.clock()
        let states = try store.read { db in try WebhookOutboxTable.checklistStates(db, environmentID: environment.id) }
        let unseen = report.items.filter { states[$0.id] == nil }
        if !unseen.isEmpty {
            try store.write { db in
                for item in unseen {
                    try WebhookOutboxTable.baseline(db, environmentID: environment.id, itemID: item.id, status: item.status.rawValue, now: now)
                }
            }
        }
        for item in report.items {
            guard let state = states[item.id], state.announced != item.status.rawValue, state.heldUntil <= now else { continue }
            let event = try Self.checklistEvent(environment, item, previous: state.announced, at: now)
            let spike = item.id == Self.riskMetricItem && item.status != .ok ? try Self.riskSpikeEvent(environment, item, at: now) : nil
            try store.write { db in
                guard try WebhookOutboxTable.announce(db, environmentID: environment.id, itemID: item.id, from: state,
                                                      to: item.status.rawValue, heldUntil: now + hold) else { return }
                try WebhookOutboxTable.enqueue(db, event)
                if let spike { try WebhookOutboxTable.enqueue(db, spike) }
            }
        }
    }

    /// The checklist item whose turning to `warn` is `appattest.riskSpike` (the checklist's rule: the share of keys
    /// with a risk metric above 5 doubled week on week).
    static let riskMetricItem = "appAttest.riskMetric"

    /// An `appattest.riskSpike` event with the item's figures.
    static func riskSpikeEvent(_ environment: Environment, _ item: ChecklistItem, at now: Int64) throws -> WebhookOutboxTable.Event {
        WebhookOutboxTable.Event(
            id: try RandomToken.identifier(prefix: "msg_"), type: WebhookEventType.riskSpike.rawValue, environmentID: environment.id,
            data: ["environment": ["id": .string(environment.id), "name": .string(environment.name), "kind": .string(environment.kind.rawValue)],
                   "keys": .number(Double(item.evidence.verdicts)), "keysAboveFive": .number(Double(item.evidence.failing)),
                   "shareAboveFive": .number(item.evidence.share), "detail": .string(item.detail)],
            text: "Gatehouse, \(environment.name): Apple's risk metric spiked. \(item.detail)", createdAt: now)
    }

    /// A route in `enforce` refusing more than this share of at least ``refusingMinimumCalls`` calls in an hour is
    /// announced (`enforcement.refusing`).
    static let refusingShare = 0.05
    static let refusingMinimumCalls = 100

    /// Announces each route in `enforce` that refused more than 5 % of at least 100 calls in about the last hour, at most
    /// once an hour per route (of servers doing this at once, one announces).
    func announceRefusals(_ environment: Environment, lastHour: [String: OutcomeCounts]) throws {
        let now = store.clock()
        for route in environment.enforcement.routes where environment.enforcement.mode(of: route) == .enforce {
            guard let counts = lastHour[route.name], counts.total >= Self.refusingMinimumCalls,
                  Double(counts.wouldRefuse) > Self.refusingShare * Double(counts.total) else { continue }
            let byOutcome = EnforcementOutcome.allCases.map { JSON.Member($0.rawValue, .number(Double(counts[$0]))) }
            let event = WebhookOutboxTable.Event(
                id: try RandomToken.identifier(prefix: "msg_"), type: WebhookEventType.enforcementRefusing.rawValue, environmentID: environment.id,
                data: ["environment": ["id": .string(environment.id), "name": .string(environment.name), "kind": .string(environment.kind.rawValue)],
                       "route": .string(route.name), "calls": .number(Double(counts.total)),
                       "refused": .number(Double(counts.wouldRefuse)), "outcomes": .object(byOutcome)],
                text: "Gatehouse, \(environment.name): the route \(route.name) (enforce) refused \(Wording.percent(counts.wouldRefuse, of: counts.total)) of "
                    + "\(Wording.number(counts.total)) calls in the last hour (\(Wording.number(counts[.missing])) without a receipt, "
                    + "\(Wording.number(counts[.invalid])) invalid, \(Wording.number(counts[.unmet])) not meeting the route, "
                    + "\(Wording.number(counts[.reused])) reused, \(Wording.number(counts[.challenge])) challenged): a release without the SDK, or an attack?",
                createdAt: now)
            try store.write { db in
                guard try WebhookOutboxTable.takeOnce(db, environmentID: environment.id, itemID: "enforcement.refusing:" + route.name,
                                                      now: now, heldUntil: now + 3_600) else { return }
                try WebhookOutboxTable.enqueue(db, event)
            }
        }
    }

    /// A `checklist.*` event for `item` of `environment`, which was `previous`.
    static func checklistEvent(_ environment: Environment, _ item: ChecklistItem, previous: String, at now: Int64) throws -> WebhookOutboxTable.Event {
        let type = WebhookEventType.checklist(item.status)
        let verb = switch item.status {
        case .fail: "needs fixing"
        case .warn: "needs a look"
        case .ok: "passes again"
        }
        return WebhookOutboxTable.Event(
            id: try RandomToken.identifier(prefix: "msg_"), type: type.rawValue, environmentID: environment.id,
            data: ["environment": ["id": .string(environment.id), "name": .string(environment.name), "kind": .string(environment.kind.rawValue)],
                   "item": ["id": .string(item.id), "status": .string(item.status.rawValue), "title": .string(item.title),
                            "detail": .string(item.detail), "fix": .string(item.fix)],
                   "previous": .string(previous)],
            text: "Gatehouse, \(environment.name): \(item.title) (\(item.id) \(verb))." + (item.fix.isEmpty ? "" : " Fix: \(item.fix)"),
            createdAt: now)
    }
}

/// The control plane's changes the audit log records that are security events (docs/device-api.md "Events",
/// `security.*`): written to the webhooks' outbox by ``AuditLogTable/record(_:at:actor:action:environmentID:changes:)``
/// in the transaction of the change, whoever made it (the dashboard, the API, the command line).
enum SecurityEvent {
    /// The event an audited `action` is, or nil when it is none.
    static func type(action: String, changes: [AuditChange]) -> WebhookEventType? {
        let touchesOwner = changes.contains { change in [change.before, change.after].contains { $0.string?.contains("(owner") == true } }
        switch action {
        case "admin.create": return .adminCreated
        case "admin.role", "admin.disable", "admin.enable": return touchesOwner ? .ownerChanged : nil
        case "token.create": return .tokenCreated
        case "key.roll": return .keyRolled
        case "receipts.rotate-key", "receipts.rotate-key.revoke": return .receiptKeyRotated
        case "admin.login.throttled": return .loginThrottled  // a known admin's only (see make)
        default: return nil
        }
    }

    /// The event of an audited change, nil when it is not a security event.
    static func make(action: String, actor: AuditActor, environmentID: String?, changes: [AuditChange], at now: Int64) throws -> WebhookOutboxTable.Event? {
        guard let type = type(action: action, changes: changes) else { return nil }
        // Every refused attempt while an account is throttled is audited; its event is sent once per admin and hour
        // (an id of its own, which the outbox takes once), and never for an e-mail that is no admin's: whoever guesses
        // cannot make the receivers take one event per guess.
        var id = try RandomToken.identifier(prefix: "msg_")
        if type == .loginThrottled {
            guard let adminID = actor.id else { return nil }
            id = "msg_" + RandomToken.base32(Array(SHA256.hash(Array("loginThrottled \(adminID) \(now / 3_600)".utf8)).prefix(10)))
        }
        // The address of a change made through the dashboard; `api` or `cli` otherwise (a management token's
        // caller is named by the token).
        let via = switch actor.kind {
        case .admin: "dashboard"
        case .token: "api"
        case .system: "cli"
        }
        let who = actor.name ?? actor.id ?? via
        let what = changes.compactMap { change -> String? in
            switch (change.before.string, change.after.string) {
            case let (before?, after?): "\(before) → \(after)"
            case let (nil, after?): after
            case let (before?, nil): "\(before) removed"
            default: nil
            }
        }.joined(separator: "; ")
        let sentence = switch type {
        case .adminCreated: "\(who) created an admin: \(what)"
        case .ownerChanged: "\(who) changed the owners: \(what)"
        case .tokenCreated: "\(who) created a management API token: \(what)"
        case .keyRolled: "\(who) rolled an API key: \(what)"
        case .receiptKeyRotated: "the receipt signing key was rotated (\(action == "receipts.rotate-key.revoke" ? "the old one unpublished at once" : "the old one published an hour more"))"
        case .loginThrottled: "sign-ins as \(who) are throttled after repeated failures (\(what))"
        default: "\(who): \(action)"
        }
        var data: [JSON.Member] = [
            .init("action", .string(action)),
            .init("actor", ["type": .string(actor.kind.rawValue), "id": actor.id.map { .string($0) } ?? .null, "name": actor.name.map { .string($0) } ?? .null]),
            .init("via", .string(via)),
            .init("address", .string(actor.address ?? changes.first { $0.field == "address" }?.after.string ?? via)),
            .init("changes", .array(changes.map { ["field": .string($0.field), "before": $0.before, "after": $0.after] })),
        ]
        if let environmentID { data.append(.init("environment", .string(environmentID))) }
        return WebhookOutboxTable.Event(id: id, type: type.rawValue, environmentID: nil,
                                        data: .object(data), text: "Gatehouse security: \(sentence) (via \(via)).", createdAt: now)
    }
}
