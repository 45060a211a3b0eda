-- App Attest state: single-use challenges and attested keys with their assertion counters (docs/device-api.md "App Attest").
-- Portable SQL: the store changes these rows only with statements that also run on PostgreSQL (DELETE … RETURNING,
-- conditional UPDATE … WHERE, INSERT … ON CONFLICT DO NOTHING), as several servers may share the tables later.

-- Challenges as issued, kept as the SHA-256 of their text: consumed once (DELETE … RETURNING), within 5 minutes, by the
-- environment they were issued to. Expired ones are purged in the background.
CREATE TABLE challenges (
    challenge_hash BLOB PRIMARY KEY CHECK (length(challenge_hash) = 32),
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    expires_at     INTEGER NOT NULL
);
-- The purge deletes by expiry across environments.
CREATE INDEX challenges_by_expiry ON challenges(expires_at);

-- Keys that passed registration, per environment. counter_newest is the newest assertion counter accepted (0 after
-- registration); bit i of counter_seen is set when counter counter_newest - 1 - i was seen.
CREATE TABLE attested_keys (
    key_id                  BLOB PRIMARY KEY CHECK (length(key_id) = 32),   -- SHA-256 of the key's X9.62 point
    environment_id          TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    public_key              BLOB NOT NULL CHECK (length(public_key) = 65),  -- X9.62 uncompressed point
    app_id                  TEXT NOT NULL,                                  -- TEAMID.bundleId it was attested for
    attestation_environment TEXT NOT NULL CHECK (attestation_environment IN ('production', 'development')),
    counter_newest          INTEGER NOT NULL DEFAULT 0 CHECK (counter_newest BETWEEN 0 AND 4294967295),
    counter_seen            INTEGER NOT NULL DEFAULT 0 CHECK (counter_seen BETWEEN 0 AND 4294967295),
    created_at              INTEGER NOT NULL,
    last_used_at            INTEGER
);
-- The Apps page counts one environment's keys per app id and attestation environment; deleting an environment
-- cascades through it.
CREATE INDEX attested_keys_by_environment ON attested_keys(environment_id, app_id, attestation_environment);
