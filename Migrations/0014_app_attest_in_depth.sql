-- App Attest in depth (docs/device-api.md "App Attest in depth"): the environment's policy, its DeviceCheck key, each
-- key's receipt and risk metric, and the receipt refresher's state.

-- The policy: accepted launch validation categories (their numbers, comma-separated; NULL accepts any), whether one
-- is required, the lowest bundle version, and the risk metric above which assertions are rejected (NULL: observe).
ALTER TABLE environments ADD COLUMN app_attest_categories TEXT;
ALTER TABLE environments ADD COLUMN app_attest_require_category INTEGER NOT NULL DEFAULT 0 CHECK (app_attest_require_category IN (0, 1));
ALTER TABLE environments ADD COLUMN app_attest_minimum_bundle_version TEXT;
ALTER TABLE environments ADD COLUMN app_attest_risk_metric_above INTEGER;

-- The environment's DeviceCheck key (a .p8 private key), sealed with the environment id as associated data; its key
-- id and team id are not secret and shown by GET.
CREATE TABLE device_check_keys (
    environment_id TEXT PRIMARY KEY REFERENCES environments(id) ON DELETE CASCADE,
    key_id         TEXT NOT NULL,
    team_id        TEXT NOT NULL,
    private_sealed BLOB NOT NULL
) WITHOUT ROWID;

-- The refresher's state per environment, apart from the environment (whose revision must not move with background
-- work): the last pass, and the key Apple refused (refreshes stop until the key changes, which deletes the refusal).
CREATE TABLE app_attest_refresh_state (
    environment_id   TEXT PRIMARY KEY REFERENCES environments(id) ON DELETE CASCADE,
    last_pass_at     INTEGER,
    refused_at       INTEGER,
    refused_status   INTEGER
) WITHOUT ROWID;

-- Each key's newest accepted receipt (the attestation's ATTEST, then each RECEIPT from Apple) with the times read
-- from it, its risk metric and when it came, and the refresher's schedule: refresh_after is when the key may be
-- tried next, refresh_claimed_until the end of a try in flight (a server claims a key with a conditional UPDATE, so one
-- server calls Apple per key and a pass skips keys another has in flight), and refresh_failures the consecutive
-- 429/5xx/unreachable answers behind the back-off.
ALTER TABLE attested_keys ADD COLUMN receipt BLOB;
ALTER TABLE attested_keys ADD COLUMN receipt_not_before INTEGER;
ALTER TABLE attested_keys ADD COLUMN receipt_expires_at INTEGER;
ALTER TABLE attested_keys ADD COLUMN risk_metric INTEGER;
ALTER TABLE attested_keys ADD COLUMN risk_metric_at INTEGER;
ALTER TABLE attested_keys ADD COLUMN refresh_after INTEGER;
ALTER TABLE attested_keys ADD COLUMN refresh_claimed_until INTEGER;
ALTER TABLE attested_keys ADD COLUMN refresh_failures INTEGER NOT NULL DEFAULT 0;
CREATE INDEX attested_keys_by_refresh ON attested_keys(environment_id, refresh_after);

-- Every risk metric Apple gave, kept 30 days: the Traffic tab's distribution per week and the checklist's spike
-- warning compare weeks by each key's latest metric in them.
CREATE TABLE app_attest_risk_metrics (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    key_id         BLOB NOT NULL,
    observed_at    INTEGER NOT NULL,
    risk_metric    INTEGER NOT NULL,
    PRIMARY KEY (environment_id, key_id, observed_at)
) WITHOUT ROWID;
CREATE INDEX app_attest_risk_metrics_by_time ON app_attest_risk_metrics(observed_at);
