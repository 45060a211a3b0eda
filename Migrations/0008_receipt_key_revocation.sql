-- A receipt key revoked (`gatehouse receipts rotate-key --revoke-now`, after a leak) leaves the JWKS at once instead
-- of staying published for an hour after its retirement, so receipts it signed stop verifying.
ALTER TABLE receipt_keys ADD COLUMN revoked_at INTEGER;
