-- The revision of each table the servers' caches follow (Store/CachedTables.swift), moved on in every transaction
-- that writes one: on PostgreSQL, where several servers share the database, each server reads them (woken by a
-- NOTIFY, and every second regardless) and forgets what it cached from a table another server changed.
CREATE TABLE revisions (
    name     TEXT PRIMARY KEY,
    revision INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO revisions (name, revision) VALUES
    ('environments', 0), ('api_keys', 0), ('admins', 0), ('sessions', 0), ('management_tokens', 0),
    ('verdict_rollups', 0), ('receipt_keys', 0), ('debug_tokens', 0);
