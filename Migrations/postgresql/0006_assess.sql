CREATE TABLE spent_nonces (
    app_id     TEXT NOT NULL,
    nonce_hash BYTEA NOT NULL CHECK (octet_length(nonce_hash) = 32),
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (app_id, nonce_hash)
);
CREATE INDEX spent_nonces_by_expiry ON spent_nonces(expires_at);

CREATE TABLE key_devices (
    key_id      BYTEA NOT NULL CHECK (octet_length(key_id) = 32),
    day         BIGINT NOT NULL,
    device_hash BYTEA NOT NULL CHECK (octet_length(device_hash) = 32),
    PRIMARY KEY (key_id, day, device_hash)
);
CREATE INDEX key_devices_by_day ON key_devices(day);
