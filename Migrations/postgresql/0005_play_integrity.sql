CREATE TABLE spent_integrity_tokens (
    token_hash     BYTEA NOT NULL CHECK (octet_length(token_hash) = 32),
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    expires_at     BIGINT NOT NULL,
    PRIMARY KEY (environment_id, token_hash)
);
CREATE INDEX spent_integrity_tokens_by_expiry ON spent_integrity_tokens(expires_at);

CREATE TABLE failed_integrity_tokens (
    token_hash     BYTEA NOT NULL CHECK (octet_length(token_hash) = 32),
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    failed_at      BIGINT NOT NULL,
    sealed_token   BYTEA NOT NULL,
    PRIMARY KEY (environment_id, token_hash)
);
CREATE INDEX failed_integrity_tokens_by_environment ON failed_integrity_tokens(environment_id, failed_at);
CREATE INDEX failed_integrity_tokens_by_age ON failed_integrity_tokens(failed_at);
