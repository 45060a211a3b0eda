-- Signed requests (docs/device-api.md "Assessment"): nonces spent per app across every environment of this server, and
-- which devices each App Attest key spoke for per UTC day. Portable SQL: rows are added with INSERT … ON CONFLICT DO
-- NOTHING (a nonce already spent, a device already counted, changes no row) and purged with plain DELETE … WHERE, so
-- several servers may share the tables later (BLOB → BYTEA on PostgreSQL).

-- A nonce is kept (as the SHA-256 of its text) for as long as its request could still be inside the 5-minute window:
-- its timestamp + 5 minutes. Keyed by the app id the request names (signed.app.id), not by environment, so another
-- environment that registered the same app finds it spent.
CREATE TABLE spent_nonces (
    app_id     TEXT NOT NULL,
    nonce_hash BLOB NOT NULL CHECK (length(nonce_hash) = 32),
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, nonce_hash)
);
-- The purge deletes by expiry across apps.
CREATE INDEX spent_nonces_by_expiry ON spent_nonces(expires_at);

-- The device ids (SHA-256 of signed.device.id) an App Attest key's verified assertions spoke for, per UTC day (unix
-- seconds / 86400): more than two in a day and the key is rejected (oneKeyManyDevices) for the rest of that day.
CREATE TABLE key_devices (
    key_id      BLOB NOT NULL CHECK (length(key_id) = 32),
    day         INTEGER NOT NULL,
    device_hash BLOB NOT NULL CHECK (length(device_hash) = 32),
    PRIMARY KEY (key_id, day, device_hash)
);
-- The purge deletes past days.
CREATE INDEX key_devices_by_day ON key_devices(day);
