-- Gatehouse's first schema. Times are unix seconds (UTC). Ids are prefixed random strings (env_…, key_…).
-- Secrets are never stored in the clear: tokens and secret keys as SHA-256 hashes, credentials sealed (AES-256-GCM).

-- Instance-wide values, e.g. the master-key check value (a constant sealed under the master key).
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;

CREATE TABLE admins (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL COLLATE NOCASE UNIQUE,   -- login looks admins up by e-mail, case-insensitively
    password_hash TEXT NOT NULL,                         -- argon2id PHC string
    role          TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
    disabled      INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) WITHOUT ROWID;

-- Browser sessions: only the SHA-256 of the cookie value is kept.
CREATE TABLE sessions (
    token_hash   BLOB PRIMARY KEY,
    admin_id     TEXT NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
    csrf_token   TEXT NOT NULL,
    flash        TEXT,                                   -- one message shown on the next page (Post/Redirect/Get)
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
) WITHOUT ROWID;
-- Logout-everywhere and disabling an admin delete by admin.
CREATE INDEX sessions_by_admin ON sessions(admin_id);

-- Failed logins, per subject ("account:<email>" or "address:<ip>"), for throttling; old rows are pruned.
CREATE TABLE login_failures (
    subject TEXT NOT NULL,
    at      INTEGER NOT NULL
);
-- Throttling counts one subject's failures in a recent window.
CREATE INDEX login_failures_by_subject ON login_failures(subject, at);

-- Tokens for automation (Authorization: Bearer gh_…): only the hash is kept.
CREATE TABLE management_tokens (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    scope        TEXT NOT NULL CHECK (scope IN ('read', 'write')),
    token_hash   BLOB NOT NULL UNIQUE,                    -- every API call looks the token up by hash
    hint         TEXT NOT NULL,                           -- the last characters, to tell tokens apart in lists
    created_by   TEXT,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) WITHOUT ROWID;

CREATE TABLE environments (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('production', 'development')),
    attack_mode INTEGER NOT NULL DEFAULT 0 CHECK (attack_mode IN (0, 1)),
    revision    INTEGER NOT NULL DEFAULT 1,               -- bumped on every change; the ETag
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE android_apps (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    package_name   TEXT NOT NULL,
    outside_play   INTEGER NOT NULL DEFAULT 0 CHECK (outside_play IN (0, 1)),
    position       INTEGER NOT NULL,                      -- keeps the order the admin gave
    PRIMARY KEY (environment_id, package_name)            -- one registration per package and environment
) WITHOUT ROWID;

CREATE TABLE android_app_digests (
    environment_id TEXT NOT NULL,
    package_name   TEXT NOT NULL,
    digest         BLOB NOT NULL CHECK (length(digest) = 32),   -- SHA-256 of the signing certificate, as bytes
    position       INTEGER NOT NULL,
    PRIMARY KEY (environment_id, package_name, digest),
    FOREIGN KEY (environment_id, package_name) REFERENCES android_apps(environment_id, package_name) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE apple_app_ids (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    app_id         TEXT NOT NULL,                         -- TEAMID.bundleId
    position       INTEGER NOT NULL,
    PRIMARY KEY (environment_id, app_id)
) WITHOUT ROWID;

-- Play Integrity decoding credentials, sealed with the environment id as associated data.
CREATE TABLE play_integrity_credentials (
    environment_id         TEXT PRIMARY KEY REFERENCES environments(id) ON DELETE CASCADE,
    service_account_sealed BLOB,
    service_account_email  TEXT,                          -- non-secret identifiers, shown by GET
    service_account_project TEXT,
    local_sealed           BLOB,
    local_key_sha256       TEXT                           -- SHA-256 of the verification key's DER, hex
) WITHOUT ROWID;

CREATE TABLE api_keys (
    id             TEXT PRIMARY KEY,
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    type           TEXT NOT NULL CHECK (type IN ('public', 'secret')),
    name           TEXT NOT NULL,
    public_value   TEXT UNIQUE,                           -- public keys only: shown always
    secret_hash    BLOB UNIQUE,                           -- secret keys only: ingest looks them up by hash
    hint           TEXT NOT NULL,                         -- prefix and last characters, for lists
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER,                               -- set when rolled: valid until then
    revoked_at     INTEGER,
    CHECK ((type = 'public') = (public_value IS NOT NULL)),
    CHECK ((type = 'secret') = (secret_hash IS NOT NULL))
) WITHOUT ROWID;
-- The keys page and the checklist list one environment's keys.
CREATE INDEX api_keys_by_environment ON api_keys(environment_id, created_at);

-- Every change, who made it and what changed (secrets replaced by "[sealed]"). Kept after an environment is deleted.
CREATE TABLE audit_log (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,     -- the cursor for paging, newest first
    at             INTEGER NOT NULL,
    actor_type     TEXT NOT NULL CHECK (actor_type IN ('admin', 'token', 'system')),
    actor_id       TEXT,
    actor_name     TEXT,
    action         TEXT NOT NULL,
    environment_id TEXT,
    changes        TEXT NOT NULL DEFAULT '[]'             -- JSON [{field, before, after}]
);
-- The audit page filters by environment and pages by id; the traffic chart marks one environment's changes.
CREATE INDEX audit_by_environment ON audit_log(environment_id, id);
CREATE INDEX audit_by_actor ON audit_log(actor_id, id);

-- Raw verdicts, kept for the retention window (8 days) and then deleted in the background.
CREATE TABLE verdicts (
    id             INTEGER PRIMARY KEY,
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    at             INTEGER NOT NULL,
    platform       TEXT NOT NULL,
    provider       TEXT NOT NULL,
    status         TEXT NOT NULL,
    reasons        TEXT NOT NULL,                         -- JSON array of strings
    observed       TEXT NOT NULL                          -- JSON object, digests normalized to colon hex
);
-- Retention deletes by time across environments.
CREATE INDEX verdicts_by_time ON verdicts(at);
CREATE INDEX verdicts_by_environment ON verdicts(environment_id, at);

-- Hourly rollups: the checklist and the chart read only these, so a week costs the same at any volume.
-- reason = '' is the row counting verdicts of that status; other rows count verdicts carrying that reason.
CREATE TABLE verdict_rollups (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    hour           INTEGER NOT NULL,
    provider       TEXT NOT NULL,
    status         TEXT NOT NULL,
    reason         TEXT NOT NULL,
    count          INTEGER NOT NULL,
    PRIMARY KEY (environment_id, hour, provider, status, reason)   -- the week's query is a range on (environment_id, hour)
) WITHOUT ROWID;

-- What devices reported alongside each reason, counted per hour (the checklist's "observed" evidence).
CREATE TABLE verdict_observed_rollups (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    hour           INTEGER NOT NULL,
    provider       TEXT NOT NULL,
    status         TEXT NOT NULL,
    reason         TEXT NOT NULL,
    field          TEXT NOT NULL,
    value          TEXT NOT NULL,
    count          INTEGER NOT NULL,
    PRIMARY KEY (environment_id, hour, provider, status, reason, field, value)
) WITHOUT ROWID;

-- Idempotency keys of ingested batches: a retried batch counts once.
CREATE TABLE ingest_batches (
    environment_id  TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    idempotency_key TEXT NOT NULL,
    accepted        INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (environment_id, idempotency_key)
) WITHOUT ROWID;
