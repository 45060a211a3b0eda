CREATE TABLE challenges (
    challenge_hash BYTEA PRIMARY KEY CHECK (octet_length(challenge_hash) = 32),
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    expires_at     BIGINT NOT NULL
);
CREATE INDEX challenges_by_expiry ON challenges(expires_at);

CREATE TABLE attested_keys (
    key_id                  BYTEA PRIMARY KEY CHECK (octet_length(key_id) = 32),
    environment_id          TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    public_key              BYTEA NOT NULL CHECK (octet_length(public_key) = 65),
    app_id                  TEXT NOT NULL,
    attestation_environment TEXT NOT NULL CHECK (attestation_environment IN ('production', 'development')),
    counter_newest          BIGINT NOT NULL DEFAULT 0 CHECK (counter_newest BETWEEN 0 AND 4294967295),
    counter_seen            BIGINT NOT NULL DEFAULT 0 CHECK (counter_seen BETWEEN 0 AND 4294967295),
    created_at              BIGINT NOT NULL,
    last_used_at            BIGINT
);
CREATE INDEX attested_keys_by_environment ON attested_keys(environment_id, app_id, attestation_environment);
