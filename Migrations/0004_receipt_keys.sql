-- Receipt signing keys (docs/device-api.md "Receipts"): ES256 keys whose public halves the JWKS publishes.
-- The private key is PKCS#8 DER sealed with AES-256-GCM under the master key (associated data "receipt-key:<kid>").
-- Exactly one key is current (retired_at NULL); `gatehouse receipts rotate-key` retires it and makes a new one, and
-- a retired key stays published for an hour. Portable SQL: runs on PostgreSQL as written (BLOB → BYTEA there).
CREATE TABLE receipt_keys (
    kid                TEXT PRIMARY KEY,          -- RFC 7638 thumbprint of the public key
    sealed_private_key BLOB NOT NULL,
    public_jwk         TEXT NOT NULL,             -- {"kty":"EC","crv":"P-256","x":…,"y":…,"kid":…,"use":"sig","alg":"ES256"}
    created_at         INTEGER NOT NULL,
    retired_at         INTEGER
);
-- At most one current key, whatever races a first start and a rotation run into.
CREATE UNIQUE INDEX receipt_keys_one_current ON receipt_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;
