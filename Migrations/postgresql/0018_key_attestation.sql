-- Android Key Attestation (docs/device-api.md "Android Key Attestation"): see Migrations/0018_key_attestation.sql.
ALTER TABLE environments ADD COLUMN key_attestation_policy TEXT;

CREATE TABLE key_attestation_keys (
    key_id              BYTEA PRIMARY KEY CHECK (octet_length(key_id) = 32),
    environment_id      TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    public_key          BYTEA NOT NULL CHECK (octet_length(public_key) <= 200),
    package_name        TEXT NOT NULL,
    certificate_digests TEXT NOT NULL,
    serials             TEXT NOT NULL,
    security_level      TEXT NOT NULL,
    boot_state          TEXT,
    boot_key            TEXT,
    os_patch_level      TEXT,
    created_at          BIGINT NOT NULL
);
CREATE INDEX key_attestation_keys_by_environment ON key_attestation_keys(environment_id, package_name);

CREATE TABLE key_attestation_status (
    name          TEXT PRIMARY KEY,
    body          TEXT,
    fetched_at    BIGINT,
    claimed_until BIGINT NOT NULL DEFAULT 0,
    failures      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT
);
INSERT INTO key_attestation_status (name) VALUES ('status');
