-- As SQLite's 0002: raw verdicts are read and purged by environment and hour only.
DROP INDEX verdicts_by_time;
DROP INDEX verdicts_by_environment;
CREATE INDEX verdicts_by_environment_hour ON verdicts(environment_id, (at / 3600));
