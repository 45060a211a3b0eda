ALTER TABLE receipt_keys ADD COLUMN revoked_at BIGINT;
