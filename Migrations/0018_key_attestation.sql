-- Android Key Attestation (docs/device-api.md "Android Key Attestation"): each environment's policy, the keys that
-- passed registration, and Google's status list as last fetched.

-- The policy's JSON (KeyAttestationPolicyFields.stored); NULL: the defaults (off).
ALTER TABLE environments ADD COLUMN key_attestation_policy TEXT;

-- Keys that passed registration, per environment. `serials` are the chain's certificates' serials (lowercase hex,
-- comma-separated), checked against the status list at each use; `package_name` and `certificate_digests` (lowercase
-- hex, comma-separated) are what the attestation application id named, checked against the registered apps at use.
-- A key registered again is judged again and its row replaced (one row per key).
CREATE TABLE key_attestation_keys (
    key_id              BLOB PRIMARY KEY CHECK (length(key_id) = 32),   -- SHA-256 of the key's SubjectPublicKeyInfo
    environment_id      TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    public_key          BLOB NOT NULL CHECK (length(public_key) <= 200), -- DER SubjectPublicKeyInfo (P-256)
    package_name        TEXT NOT NULL,
    certificate_digests TEXT NOT NULL,
    serials             TEXT NOT NULL,
    security_level      TEXT NOT NULL,
    boot_state          TEXT,
    boot_key            TEXT,
    os_patch_level      TEXT,
    created_at          INTEGER NOT NULL
);
-- The Apps page counts one environment's keys per package; deleting an environment cascades through it.
CREATE INDEX key_attestation_keys_by_environment ON key_attestation_keys(environment_id, package_name);

-- Google's status list as last fetched (one row, name 'status'): fetched once across servers by a claim
-- (`claimed_until`, a conditional UPDATE), every server reading the body when `fetched_at` moves.
CREATE TABLE key_attestation_status (
    name          TEXT PRIMARY KEY,
    body          TEXT,
    fetched_at    INTEGER,
    claimed_until INTEGER NOT NULL DEFAULT 0,
    failures      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT
);
INSERT INTO key_attestation_status (name) VALUES ('status');
