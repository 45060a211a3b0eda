-- Raw verdicts get one index, which new rows extend at its end instead of all over.
--
-- 0001 indexed raw verdicts by exact time, twice. A batch's verdicts carry times spread over the last hours or days,
-- so each batch inserted into hundreds of index pages, and every one of them was copied to the WAL at commit: that,
-- not the rows, was most of ingest's cost. Keyed by environment and hour (and then the rowid, which grows), a batch
-- touches one index page per distinct hour it holds.
DROP INDEX verdicts_by_time;
DROP INDEX verdicts_by_environment;
-- Retention deletes per environment and by hour (Verdicts.prune: `environment_id = ? AND at / 3600 <= cutoff hour
-- AND at < cutoff`), and deleting an environment cascades to its verdicts through it too.
CREATE INDEX verdicts_by_environment_hour ON verdicts(environment_id, at / 3600);
