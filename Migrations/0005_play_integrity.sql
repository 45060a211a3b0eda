-- Play Integrity state (docs/device-api.md "Play Integrity", "Keys checked before they are trusted").
-- Portable SQL: rows are added with INSERT … ON CONFLICT DO NOTHING (the replay check: a token whose hash is already
-- here changes no row), trimmed and purged with plain DELETE … WHERE, so several servers may share the tables later.

-- Tokens judged, kept as the SHA-256 of their text (never the token) for as long as the token could still pass the
-- freshness check: its timestamp + 10 minutes, at most 20 minutes from when it was judged. Expired rows are purged in
-- the background.
CREATE TABLE spent_integrity_tokens (
    token_hash     BLOB NOT NULL CHECK (length(token_hash) = 32),
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    expires_at     INTEGER NOT NULL,
    PRIMARY KEY (environment_id, token_hash)
);
-- The purge deletes by expiry across environments.
CREATE INDEX spent_integrity_tokens_by_expiry ON spent_integrity_tokens(expires_at);

-- The most recent tokens per environment (50 are kept) that the local keys could not decrypt or verify, or that
-- nothing was set to decode, sealed under the master key with the environment id as associated data, for 24 hours:
-- what candidate keys are tried on before they are trusted.
CREATE TABLE failed_integrity_tokens (
    token_hash     BLOB NOT NULL CHECK (length(token_hash) = 32),
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    failed_at      INTEGER NOT NULL,
    sealed_token   BLOB NOT NULL,
    PRIMARY KEY (environment_id, token_hash)
);
-- Newest first per environment (the check, the trim to 50); the purge deletes by age.
CREATE INDEX failed_integrity_tokens_by_environment ON failed_integrity_tokens(environment_id, failed_at);
CREATE INDEX failed_integrity_tokens_by_age ON failed_integrity_tokens(failed_at);
