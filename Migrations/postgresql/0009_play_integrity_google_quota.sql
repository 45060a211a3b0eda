CREATE TABLE judged_integrity_tokens (
    token_hash     BYTEA NOT NULL CHECK (octet_length(token_hash) = 32),
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    expires_at     BIGINT NOT NULL,
    status         TEXT,
    reasons        TEXT,
    PRIMARY KEY (environment_id, token_hash)
);
CREATE INDEX judged_integrity_tokens_by_expiry ON judged_integrity_tokens(expires_at);

CREATE TABLE google_decode_counts (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    day            BIGINT NOT NULL,
    count          BIGINT NOT NULL,
    PRIMARY KEY (environment_id, day)
);

ALTER TABLE environments ADD COLUMN play_integrity_daily_quota BIGINT NOT NULL DEFAULT 10000;
