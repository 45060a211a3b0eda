-- Play Integrity in depth (docs/device-api.md "Play Integrity in depth"): the environment's policy, and the tokens judged
-- per package and Pacific day (Google's quota day). `google_decode_counts.day` holds Pacific days from here on too (the
-- day of the migration mixes the two).

-- The policy as the management API writes it (JSON); NULL: today's rules.
ALTER TABLE environments ADD COLUMN play_integrity_policy TEXT;

-- Distinct tokens that decoded (locally or through Google) per environment, Pacific day (the unix seconds of that
-- date's midnight UTC) and package: what the device asked Google for, against the quota.
CREATE TABLE play_integrity_token_counts (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    day            BIGINT NOT NULL,
    package_name   TEXT NOT NULL,
    count          BIGINT NOT NULL,
    PRIMARY KEY (environment_id, day, package_name)
);
CREATE INDEX play_integrity_token_counts_by_day ON play_integrity_token_counts(day);
