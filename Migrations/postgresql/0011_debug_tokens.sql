CREATE TABLE debug_tokens (
    id             TEXT PRIMARY KEY,
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    token_hash     BYTEA NOT NULL UNIQUE,
    created_by     TEXT,
    created_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    last_used_at   BIGINT,
    revoked_at     BIGINT
);
CREATE INDEX debug_tokens_by_environment ON debug_tokens(environment_id, created_at);
