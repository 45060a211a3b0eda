import Foundation
import HTTPClient
import JSON
import Storage

/// The delivery of the outbox's events (docs/device-api.md "Delivery"): the `gh-webhooks` job's run, one attempt, its
/// outcome recorded, and the purge of events past 3 days.
extension Webhooks {
    /// One run of the delivery job: claims the due head of each endpoint's queue (one per endpoint, up to
    /// ``maxConcurrent`` endpoints at once) and delivers it, on threads of their own in a served process (a slow
    /// receiver delays only itself), on the caller's thread in a test. Answers the seconds until the next run.
    func deliverDue(onItsThread: Bool) -> Double {
        let now = store.clock()
        let heads: [WebhookOutboxTable.Head]
        do {
            heads = try store.read { db in try WebhookOutboxTable.heads(db) }
        } catch {
            log.warning("reading the webhook deliveries failed", ["error": "\(error)"])
            return 5
        }
        for head in heads where head.dueAt <= now && head.claimedUntil <= now {
            let taken = inFlight.withLock { busy -> Bool in
                guard busy.count < Self.maxConcurrent, !busy.contains(head.webhookID) else { return false }
                busy.insert(head.webhookID)
                return true
            }
            guard taken else { continue }
            let claimed = (try? store.write { db in try WebhookOutboxTable.claim(db, head, until: now + Self.claimSeconds) }) ?? false
            guard claimed else {
                inFlight.withLock { _ = $0.remove(head.webhookID) }
                continue
            }
            if onItsThread {
                let thread = Thread { [self] in
                    deliver(head, claimedAt: now)
                    inFlight.withLock { _ = $0.remove(head.webhookID) }
                }
                thread.name = "gh-webhook"
                thread.start()
            } else {
                deliver(head, claimedAt: now)
                inFlight.withLock { _ = $0.remove(head.webhookID) }
            }
        }
        return 1
    }

    /// Delivers a claimed head and records the outcome: delivered, or tried again later, or the endpoint given up.
    func deliver(_ head: WebhookOutboxTable.Head, claimedAt now: Int64) {
        do {
            guard let event = try store.read({ db in try WebhookOutboxTable.event(db, id: head.eventID) }) else {
                try store.write { db in try WebhookOutboxTable.delivered(db, webhookID: head.webhookID, eventID: head.eventID) }
                return
            }
            let attempt = try send(event, to: head.webhookID, at: now)
            count(attempt)
            let retryAt = now + WebhookRetries.delay(afterAttempts: head.attempts + 1, scale: retryScale, random: random())
            let scale = retryScale
            try store.write { db in
                try WebhookOutboxTable.recordAttempt(db, webhookID: head.webhookID, attempt)
                try WebhooksTable.recordResult(db, id: head.webhookID, succeeded: attempt.succeeded, result: attempt.result, at: now)
                if attempt.succeeded {
                    try WebhookOutboxTable.delivered(db, webhookID: head.webhookID, eventID: head.eventID)
                    return
                }
                try WebhookOutboxTable.retry(db, webhookID: head.webhookID, eventID: head.eventID, dueAt: retryAt)
                if let webhook = try WebhooksTable.get(db, id: head.webhookID), let since = webhook.failingSince,
                   WebhookRetries.givesUp(failingSince: since, nextTry: retryAt, scale: scale) {
                    try WebhooksTable.disable(db, id: head.webhookID, reason: Self.givenUp(since: since, now: now, last: attempt.result))
                }
            }
            if !attempt.succeeded {
                log.warning("a webhook delivery failed", ["webhook": head.webhookID, "event": head.eventID, "result": attempt.result])
            }
        } catch {
            log.warning("a webhook delivery could not be recorded", ["webhook": head.webhookID, "error": "\(error)"])
        }
    }

    /// Sends `event` to endpoint `id` once: the body made, signed with the live secrets, to the address its host
    /// resolves to now (checked); the attempt as it went.
    func send(_ event: WebhookOutboxTable.Event, to id: String, at now: Int64) throws -> WebhookAttempt {
        let (sealedURL, sealedSecrets) = try store.read { db in
            (try WebhooksTable.sealedURL(db, id: id), try WebhooksTable.secrets(db, id: id, now: now))
        }
        guard let sealedURL else { throw DomainError.notFound("no webhook \(id)") }
        let url = String(decoding: try open(sealedURL, id: id), as: UTF8.self)
        let keys = try sealedSecrets.compactMap { WebhookSignature.key(String(decoding: try open($0, id: id), as: UTF8.self)) }
        let body = WebhookBody.make(event, publicURL: publicURL)
        var attempt = WebhookAttempt(eventID: event.id, type: event.type, at: now, status: nil, error: nil, durationMilliseconds: 0)
        let address: OutboundAddress, destination: WebhookDestination
        do {
            destination = try WebhookDestination(url, rules: rules)
            address = try destination.address(rules: rules)
        } catch {
            attempt.error = "refused: \(error.description)"
            return attempt
        }
        var request = OutboundRequest(method: .post, url: url, headers: [
            ("Content-Type", "application/json"), ("webhook-id", event.id), ("webhook-timestamp", String(now)),
            ("webhook-signature", WebhookSignature.header(id: event.id, timestamp: now, body: body, keys: keys)),
        ], body: body, timeout: Self.timeout)
        request.pinned = (destination.host, destination.port, address)
        let started = ContinuousClock.now
        do {
            let response = try client.send(request)
            attempt.status = response.status
        } catch {
            attempt.error = Self.redacted(error)
        }
        let elapsed = ContinuousClock.now - started
        attempt.durationMilliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return attempt
    }

    /// An outbound error as the deliveries list shows it: what happened, never the URL (whose path may be a credential).
    static func redacted(_ error: HTTPClientError) -> String {
        switch error {
        case .timedOut: "timed out after 10 seconds"
        case .unreachable(let reason): "could not connect: \(reason)"
        case .certificateRejected(let reason): "its TLS certificate was refused: \(reason)"
        case .responseTooLarge: "answered more than 64 KiB"
        case .busy: "too many deliveries at once"
        case .invalidConfiguration(let reason), .invalidRequest(let reason), .transferFailed(let reason): "failed: \(reason)"
        }
    }

    func count(_ attempt: WebhookAttempt) {
        let result = attempt.succeeded ? "delivered" : (attempt.error?.hasPrefix("refused") == true ? "refused" : "failed")
        counts.withLock { $0[result, default: 0] += 1 }
    }

    /// Deletes events older than 3 days (what an endpoint re-enabled after being given up resumes with is what is left),
    /// first disabling the endpoints that have failed for all of those 3 days (their next try, jittered, may not have
    /// come yet).
    func purge() throws {
        let now = store.clock(), before = now - Self.retention
        try store.write { db in
            for webhook in try WebhooksTable.all(db) where webhook.enabled {
                guard let since = webhook.failingSince, since <= now - Int64(WebhookRetries.giveUpAfter * retryScale) else { continue }
                try WebhooksTable.disable(db, id: webhook.id, reason: Self.givenUp(since: since, now: now, last: webhook.lastResult ?? "failed"))
            }
        }
        try store.purge(limit: 500) { db in try WebhookOutboxTable.purge(db, before: before, limit: 500) }
    }

    /// Why an endpoint was disabled.
    static func givenUp(since: Int64, now: Int64, last: String) -> String {
        "disabled by Gatehouse on \(Timestamp.format(now)): every delivery failed since \(Timestamp.format(since)) (last: \(last)); "
            + "enable it again to resume with the events of the last 3 days"
    }
}
