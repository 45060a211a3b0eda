-- As SQLite's 0012: the revision of each table the servers' caches follow, moved on in every transaction that writes
-- one; a change to them wakes every server listening on gatehouse_revisions when it commits.
CREATE TABLE revisions (
    name     TEXT PRIMARY KEY,
    revision BIGINT NOT NULL
);
INSERT INTO revisions (name, revision) VALUES
    ('environments', 0), ('api_keys', 0), ('admins', 0), ('sessions', 0), ('management_tokens', 0),
    ('verdict_rollups', 0), ('receipt_keys', 0), ('debug_tokens', 0);

CREATE FUNCTION gatehouse_revisions_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('gatehouse_revisions', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER revisions_moved AFTER UPDATE ON revisions FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_revisions_moved();
