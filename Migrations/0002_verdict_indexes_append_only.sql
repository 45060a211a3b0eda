-- Raw verdicts' indexes that new rows extend at their end instead of all over.
--
-- 0001 indexed raw verdicts by exact time. A batch's verdicts carry times spread over the last hours or days, so
-- each batch inserted into hundreds of index pages, and every one of them was copied to the WAL at commit: that,
-- not the rows, was most of ingest's cost. Keyed by the hour (and the rowid, which grows), a batch touches one
-- index page per distinct hour it holds.
DROP INDEX verdicts_by_time;
DROP INDEX verdicts_by_environment;
-- Retention deletes by time across environments (Verdicts.prune: `at / 3600 <= cutoff hour AND at < cutoff`).
CREATE INDEX verdicts_by_hour ON verdicts(at / 3600);
-- Deleting an environment cascades to its verdicts, and a look at one environment's raw verdicts goes by hour.
CREATE INDEX verdicts_by_environment_hour ON verdicts(environment_id, at / 3600);
