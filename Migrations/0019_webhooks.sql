-- Alerts (docs/device-api.md "Alerts: webhooks when something needs a person"): webhook endpoints, the outbox of
-- events, each endpoint's deliveries still to make, the attempts made, and the checklist states last announced.

-- An endpoint. `url` is what people are shown (the scheme, host and first path segment: a Slack or Mattermost URL's
-- path is its credential); the whole URL is `url_sealed`. `events` and `environments` are JSON arrays (["*"], or event names / environment ids). `secret` and
-- `previous_secret` are sealed under the master key (associated data "webhook <id>"); the previous secret also signs
-- until `previous_until` (a rotation's 24 hours). `failing_since` is the first failure of the current run of failures
-- (NULL after a success); an endpoint failing for 3 days is disabled with `disabled_reason`.
CREATE TABLE webhooks (
    id              TEXT PRIMARY KEY,
    url             TEXT NOT NULL,
    url_sealed      BLOB NOT NULL,
    description     TEXT NOT NULL,
    events          TEXT NOT NULL,
    environments    TEXT NOT NULL,
    enabled         INTEGER NOT NULL,
    secret          BLOB NOT NULL,
    previous_secret BLOB,
    previous_until  INTEGER,
    disabled_reason TEXT,
    failing_since   INTEGER,
    failures        INTEGER NOT NULL DEFAULT 0,
    last_attempt_at INTEGER,
    last_result     TEXT,
    created_at      INTEGER NOT NULL
);

-- The outbox: each event (its type, environment and data; the body is made from them at each attempt, the same on
-- every one), written in the transaction that changed the state; deleted 3 days after it was made.
CREATE TABLE webhook_events (
    id             TEXT PRIMARY KEY,
    type           TEXT NOT NULL,
    environment_id TEXT,
    data           TEXT NOT NULL,
    created_at     INTEGER NOT NULL
);
CREATE INDEX webhook_events_by_time ON webhook_events(created_at);

-- What each endpoint has still to receive, delivered in order (created_at, event_id). A server claims the head of an
-- endpoint's queue with a conditional UPDATE on `claim`, which each claim moves on: of servers that read the same
-- row, one claims it.
CREATE TABLE webhook_deliveries (
    webhook_id    TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id      TEXT NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
    created_at    INTEGER NOT NULL,
    due_at        INTEGER NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    claimed_until INTEGER NOT NULL DEFAULT 0,
    claim         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries(webhook_id, created_at, event_id);

-- The attempts made (the last 100 of each endpoint are kept).
CREATE TABLE webhook_attempts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id  TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id    TEXT NOT NULL,
    type        TEXT NOT NULL,
    at          INTEGER NOT NULL,
    status      INTEGER,
    error       TEXT,
    duration_ms INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts(webhook_id, id);

-- Per environment and checklist item: the status last announced (or first seen) and the end of its hold, before
-- which no other event of the item is sent.
CREATE TABLE webhook_checklist_states (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    item_id        TEXT NOT NULL,
    announced      TEXT NOT NULL,
    held_until     INTEGER NOT NULL,
    PRIMARY KEY (environment_id, item_id)
);
