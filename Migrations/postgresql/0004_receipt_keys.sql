CREATE TABLE receipt_keys (
    kid                TEXT PRIMARY KEY,
    sealed_private_key BYTEA NOT NULL,
    public_jwk         TEXT NOT NULL,
    created_at         BIGINT NOT NULL,
    retired_at         BIGINT
);
CREATE UNIQUE INDEX receipt_keys_one_current ON receipt_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;
