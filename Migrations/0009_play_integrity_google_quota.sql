-- Tokens sent to Google (or about to be), by SHA-256, for 10 minutes: a token judged in that time is never sent
-- again (a replayed or junk token costs no quota). `status` and `reasons` hold the judgement when Google's answer
-- carried no payload (unreachable, refused, not decodable); NULL while the call runs and for a token Google decoded
-- (its replay is `verdictReplayed`).
CREATE TABLE judged_integrity_tokens (
    token_hash     BLOB NOT NULL CHECK (length(token_hash) = 32),
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    expires_at     INTEGER NOT NULL,
    status         TEXT,
    reasons        TEXT,
    PRIMARY KEY (environment_id, token_hash)
);
CREATE INDEX judged_integrity_tokens_by_expiry ON judged_integrity_tokens(expires_at);

-- Calls to Google's decodeIntegrityToken per environment and UTC day (`day`: unix seconds of its midnight), whatever
-- Google answered: what the checklist holds against the environment's daily quota.
CREATE TABLE google_decode_counts (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    day            INTEGER NOT NULL,
    count          INTEGER NOT NULL,
    PRIMARY KEY (environment_id, day)
);

-- The environment's Play Integrity quota of decodes per day (Google's default per app and day is 10 000).
ALTER TABLE environments ADD COLUMN play_integrity_daily_quota INTEGER NOT NULL DEFAULT 10000;
