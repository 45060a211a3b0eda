-- Apple receipt refresh claims (docs/device-api.md "Refresh"): each claim of a key moves `refresh_version` on, and a
-- claim names the version its pass read, so a pass that read a key before another server claimed, traded and released
-- it cannot claim it again, even when the new schedule equals the old one (a key whose time of day fell within the
-- hour after its registration is scheduled for the same instant before and after its refresh).
ALTER TABLE attested_keys ADD COLUMN refresh_version INTEGER NOT NULL DEFAULT 0;
