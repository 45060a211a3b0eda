-- Debug tokens (docs/device-api.md "Debug tokens"): a way in for an environment's own simulators, emulators and CI
-- builds, which an admin names, sees and revokes. Only the SHA-256 of a token is kept (`dt_…` is shown once);
-- `last_used_at` is written at a token's first use, then at most once a minute.
CREATE TABLE debug_tokens (
    id             TEXT PRIMARY KEY,
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    token_hash     BLOB NOT NULL UNIQUE,                  -- every debug assessment looks its token up by hash
    created_by     TEXT,
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    last_used_at   INTEGER,
    revoked_at     INTEGER
);
CREATE INDEX debug_tokens_by_environment ON debug_tokens(environment_id, created_at);
