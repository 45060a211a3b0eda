-- Receipts spent by `"consume": true` on /api/v4/receipts/verify (docs/device-api.md "Receipts spent once"), by
-- environment and `sub` (the assessment's request id), kept until the receipt's `exp`: from then on the receipt
-- fails as `expired` anyway, so the row can go.
CREATE TABLE consumed_receipts (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    subject        TEXT NOT NULL,
    expires_at     INTEGER NOT NULL,
    PRIMARY KEY (environment_id, subject)
);
CREATE INDEX consumed_receipts_by_expiry ON consumed_receipts(expires_at);
