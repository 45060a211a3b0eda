CREATE TABLE consumed_receipts (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    subject        TEXT NOT NULL,
    expires_at     BIGINT NOT NULL,
    PRIMARY KEY (environment_id, subject)
);
CREATE INDEX consumed_receipts_by_expiry ON consumed_receipts(expires_at);
